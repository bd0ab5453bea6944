/**
 * A backend's loading stage as the worker reports it: English text (logs, tests, the CLI) and the
 * same as a message, so the page's progress line reads in the page's language.
 */
import { englishRef, type MessageRef } from '../i18n/message.ts';

export function loadingStage(message: MessageRef): { stage: string; stageRef: MessageRef } {
  return { stage: englishRef(message), stageRef: message };
}
