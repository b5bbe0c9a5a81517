// Messages for everyone (an aria-live region) and the busy bar while requests run.

let running = 0;

/** Counts requests in flight; the bar and aria-busy show while any runs. */
export function busy(delta) {
  running = Math.max(0, running + delta);
  const bar = document.getElementById('busy');
  if (bar) bar.hidden = running === 0;
  document.getElementById('main')?.setAttribute('aria-busy', running > 0 ? 'true' : 'false');
}

let clearTimer = 0;

/** Shows a short message in the status line and reads it out; kind: 'info' or 'error'. */
export function announce(message, kind = 'info') {
  const region = document.getElementById('status');
  if (!region) return;
  // The region stays in the page (a hidden one would not be read out); empty, CSS hides its box.
  region.textContent = message;
  region.className = `status status-${kind}`;
  clearTimeout(clearTimer);
  clearTimer = setTimeout(() => {
    region.textContent = '';
  }, kind === 'error' ? 12000 : 6000);
}
