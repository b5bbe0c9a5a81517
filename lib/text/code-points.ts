/** Length in Unicode code points, the unit every text limit counts in (docs/API.md "Conventions"). */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
