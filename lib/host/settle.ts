/** Waits until every promise has settled, but at most `ms`: a job's stop must not hang on work that ignores its abort. */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve) => {
      grace = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(grace);
}
