/**
 * A size as an operator reads it: `512 B`, `416 KiB`, `2.3 MiB`, `12.5 GiB`. The unit grows with
 * the size, so the last few hundred KiB of a nearly full disk never read as "0 MiB".
 */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${Math.floor(bytes / 1024)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}
