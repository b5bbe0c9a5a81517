// Registration and login when the board's password-hashing line is full (docs/API.md: 503
// auth.busy with Retry-After): the form waits as the server asks and tries again by itself, a few
// times at most, instead of telling the person to press the button again.
import { ApiError } from './api.js';

/** Tries in all, the first included: a line that stays full after three is better reported than waited on. */
export const maxTries = 3;
/** The waits together never pass this many seconds: longer, and the person is better told to come back. */
export const maxWaitSeconds = 30;

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it answers anything but 503 auth.busy with a Retry-After: at most maxTries
 * tries, waiting at most maxWaitSeconds in all; the last answer (or error) is the result.
 * onWait(seconds left) each second of a wait, then onWait(0) as the next try starts. `attempt` is
 * called afresh for each try: a try that needs proof of work sends a challenge of its own, since
 * a challenge is good for one request.
 * @template T
 * @param {() => Promise<T>} attempt
 * @param {(secondsLeft: number) => void} onWait
 * @returns {Promise<T>}
 */
export async function retryWhenBusy(attempt, onWait) {
  let waited = 0;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      const wait = isBusy(err) ? /** @type {ApiError} */ (err).retryAfter : 0;
      if (!wait || tries >= maxTries || waited + wait > maxWaitSeconds) throw err;
      waited += wait;
      for (let left = wait; left > 0; left--) {
        onWait(left);
        await sleep(1000);
      }
      onWait(0);
    }
  }
}

/**
 * Whether an error is the hashing line's 503 auth.busy.
 * @param {unknown} err
 */
export function isBusy(err) {
  return err instanceof ApiError && err.status === 503 && err.code === 'auth.busy';
}

/**
 * The status line's text while a form waits for its next try.
 * @param {number} secondsLeft 0: the try is on its way
 */
export function busyText(secondsLeft) {
  return secondsLeft > 0 ? `Viel Andrang – neuer Versuch in ${secondsLeft} s` : 'Viel Andrang – neuer Versuch …';
}
