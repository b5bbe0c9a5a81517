/**
 * A readable German name for the device behind a User-Agent ("Firefox auf Linux"), for the
 * session list: the raw string is five lines on a phone and means little to most people.
 * A rough guess by design, first match wins; the order matters because browsers copy each
 * other's tokens (every Chrome says "Safari", Edge and Opera say "Chrome").
 */

const unknownDevice = 'Unbekanntes Gerät';

const tools: [RegExp, string][] = [
  [/^curl\//i, 'curl'],
  [/^Wget\//i, 'Wget'],
  [/^python-requests\//i, 'Python (requests)'],
  [/^python-urllib|^Python-urllib/i, 'Python'],
  [/^node-fetch|^undici|^node\b/i, 'Node.js'],
  [/^Go-http-client\//i, 'Go'],
  [/^HTTPie\//i, 'HTTPie'],
  [/^PostmanRuntime\//i, 'Postman'],
];

const browsers: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera|OPT)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/(Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\/|\b(iPhone|iPad).*\bMobile\//, 'Safari'],
];

const systems: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

function firstMatch(table: [RegExp, string][], text: string): string | undefined {
  return table.find(([pattern]) => pattern.test(text))?.[1];
}

export function describeDevice(userAgent: string): string {
  const ua = userAgent.trim();
  if (!ua) return unknownDevice;
  const tool = firstMatch(tools, ua);
  if (tool) return tool;
  const browser = firstMatch(browsers, ua);
  const system = firstMatch(systems, ua);
  if (browser && system) return `${browser} auf ${system}`;
  if (browser) return browser;
  if (system) return `Browser auf ${system}`;
  return unknownDevice;
}
