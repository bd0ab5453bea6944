import { createServer, type AddressInfo } from 'node:net';

/** A loopback port nobody listens on now (other checkouts and benches run their own servers). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}
