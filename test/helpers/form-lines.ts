import type { Page } from 'playwright-core';

/**
 * What the account forms' lines said (issue 31): every text the status line (`.form-status`) and
 * the message line (`.form-message`) showed, in order, recorded in the page by a MutationObserver,
 * so a test reads what a person saw however briefly it stood there, without timing anything.
 */

/** Starts recording on the page as it is now; call formLines later to read them. */
export async function recordFormLines(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const seen = (window.boardFormLines = []);
    const note = () => {
      for (const el of document.querySelectorAll('.form-status, .form-message')) {
        const line = (el.classList.contains('form-status') ? 'status: ' : 'message: ') + el.textContent;
        if (el.textContent && !seen.includes(line)) seen.push(line);
      }
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

/** The lines recorded so far, each once, as `status: …` or `message: …`. */
export async function formLines(page: Page): Promise<string[]> {
  return (await page.evaluate('window.boardFormLines')) as string[];
}
