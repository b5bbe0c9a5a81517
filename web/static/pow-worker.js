// The proof-of-work solver as a module Web Worker of the board's own origin (static/pow.js starts
// it): searches its share of the counters (start, step) and posts progress and the answer.
import { searchCounter } from './pow-solve.js';

/** The worker's side of postMessage, without the WebWorker type library. */
const scope =
  /** @type {{ onmessage: ((event: MessageEvent) => void) | null, postMessage(message: unknown): void }} */ (
    /** @type {unknown} */ (self)
  );

/** @param {MessageEvent} event */
scope.onmessage = async (event) => {
  /** @type {{ parameters: Api.PowParameters, start: number, step: number }} */
  const { parameters, start, step } = event.data;
  const found = await searchCounter(parameters, start, step, (counter) => scope.postMessage({ tried: counter }));
  scope.postMessage(found ?? { failed: true });
};
