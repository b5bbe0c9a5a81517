import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { emptyFolder } from './folders.ts';
import { imageFixture } from './images.ts';

/**
 * Pictures the browser suites make and keep, apart from browser.ts so a process that only makes
 * them (test/fixtures/failing-suite.ts) does not load Playwright and the board.
 */

/**
 * The folder for one suite's screenshots, for a person to look at: with TEST_SCREENSHOTS=<folder>
 * set, `<folder>/<suite>`, named in the output. Without it none, and keepScreenshot takes none:
 * nobody would look at them, and each costs the browser work in every run.
 */
export function screenshotDir(suite: string): string | undefined {
  const kept = process.env.TEST_SCREENSHOTS;
  if (!kept) return undefined;
  const folder = resolve(kept, suite);
  mkdirSync(folder, { recursive: true });
  console.log(`${suite} screenshots: ${folder}`);
  return folder;
}

/** A screenshot of the page as `<name>.png` in `folder` (screenshotDir's); none without a folder. */
export async function keepScreenshot(
  page: Page,
  folder: string | undefined,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (folder) await page.screenshot({ path: join(folder, `${name}.png`), fullPage: options.fullPage ?? false });
}

/** A real PNG picture with a diagonal stripe, written to a temporary file. */
export async function makePng(width = 480, height = 320, colour = { r: 30, g: 110, b: 190 }): Promise<string> {
  const file = join(emptyFolder('board-png-'), `bild-${width}x${height}.png`);
  const stripe = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
       <polygon points="0,${height} ${width * 0.6},0 ${width},0 ${width * 0.4},${height}" fill="#f4c542"/>
       <circle cx="${width * 0.2}" cy="${height * 0.3}" r="${Math.min(width, height) * 0.12}" fill="#ffffff"/>
     </svg>`;
  writeFileSync(file, await imageFixture({ format: 'png', width, height, background: colour, overlay: stripe }));
  return file;
}
