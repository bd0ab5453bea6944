import type { FakeHandler } from './fake-llm.ts';

/**
 * A fake provider's answers, held back until the test lets them through: a run stands still at a
 * known place while the test reloads, opens a tab, goes offline or fills the disk, instead of
 * racing a timer. Requests arrive (and count in `fake.requests`) as usual; only the answers wait.
 */
export class AnswerGate {
  #allowed = 0;
  #waiting: Array<() => void> = [];
  #held = 0;
  readonly handler: FakeHandler;

  /** `answer` replies to each request once the gate lets it through. */
  constructor(answer: FakeHandler) {
    this.handler = async (req) => {
      this.#held++;
      while (this.#allowed <= 0) {
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
      }
      this.#held--;
      this.#allowed--;
      return answer(req);
    };
  }

  /** Lets `n` more answers through (Infinity: all from now on). */
  allow(n: number): void {
    this.#allowed += n;
    // Every waiter looks again; those without a slot wait again.
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Requests that arrived and wait for an answer now. */
  get held(): number {
    return this.#held;
  }
}
