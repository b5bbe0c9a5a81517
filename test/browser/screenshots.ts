/**
 * `make screenshots`: starts a board with German sample content (users with avatars, threads with
 * replies, a photo, a video link with its preview, votes, a bump and 30 days of visits moved
 * through the board's clock; see screenshot-account.ts for sessions, a mute and reports) and saves
 * the feed, a thread, a profile, the statistics, the settings, the moderation queue and Anna's
 * notifications (three replies and a mention) at desktop (1280 px) and phone (390 px) width under
 * docs/screenshots/. The notifications come last: until then the header shows their unread count,
 * and opening them marks them read, so the phone's picture shows them read.
 *
 * Everything goes through the real server and its API; the only stand-in is a local oEmbed
 * endpoint for the video link, so nothing leaves this machine.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { day, limitsOff, member, password, startBoard, type Client, type TestBoard } from '../helpers.ts';
import { writeAccountContent } from './screenshot-account.ts';
import {
  chromiumMissing,
  chromiumPath,
  launchChromium,
  newRecordedContext,
  openBoard,
  waitInPage,
} from '../helpers/browser.ts';

const outDir = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const minute = 60;
const hour = 3600;

/** A picture drawn from SVG (no text, so no font is needed). */
function picture(svg: string, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const image = sharp(Buffer.from(svg));
  return (format === 'png' ? image.png() : image.jpeg({ quality: 85 })).toBuffer();
}

const sunset = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="640">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#2b2f77"/><stop offset="0.45" stop-color="#e0665b"/><stop offset="0.62" stop-color="#f7b267"/>
    </linearGradient>
    <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#f4a261"/><stop offset="1" stop-color="#264653"/>
    </linearGradient>
  </defs>
  <rect width="1024" height="400" fill="url(#sky)"/>
  <circle cx="610" cy="385" r="70" fill="#ffd27d"/>
  <path d="M0 380 L140 300 L260 360 L380 290 L520 385 Z" fill="#3d3552"/>
  <path d="M560 390 L700 330 L860 370 L1024 310 L1024 400 L540 400 Z" fill="#463c5e"/>
  <rect y="395" width="1024" height="245" fill="url(#lake)"/>
  <g fill="#ffd27d" opacity="0.7">
    <rect x="560" y="420" width="100" height="5"/><rect x="575" y="450" width="70" height="5"/>
    <rect x="585" y="480" width="50" height="4"/><rect x="595" y="510" width="30" height="4"/>
  </g>
  <path d="M90 640 L140 470 L165 470 L130 640 Z" fill="#1d1a2b"/>
</svg>`;

const talkThumb = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360">
  <rect width="480" height="360" fill="#1f3b4d"/>
  <rect x="0" y="250" width="480" height="110" fill="#2e5e4e"/>
  <g fill="#d9e4dd"><rect x="40" y="120" width="70" height="130"/><rect x="130" y="80" width="60" height="170"/>
  <rect x="210" y="140" width="80" height="110"/><rect x="310" y="60" width="55" height="190"/><rect x="385" y="110" width="60" height="140"/></g>
  <rect x="0" y="285" width="480" height="22" fill="#c9c9c9"/>
  <circle cx="120" cy="296" r="9" fill="#e76f51"/><circle cx="300" cy="296" r="9" fill="#f4a261"/>
</svg>`;

function avatarSvg(background: string, shape: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="${background}"/>${shape}</svg>`;
}

const avatars: Record<string, string> = {
  'Anna Beispiel': avatarSvg(
    '#2a9d8f',
    '<circle cx="128" cy="100" r="52" fill="#f1faee"/><ellipse cx="128" cy="236" rx="92" ry="70" fill="#f1faee"/>',
  ),
  Cora: avatarSvg(
    '#e9c46a',
    '<path d="M40 200 L128 50 L216 200 Z" fill="#264653"/><circle cx="128" cy="170" r="26" fill="#e76f51"/>',
  ),
  'Deniz Yılmaz': avatarSvg(
    '#6d597a',
    '<rect x="56" y="56" width="144" height="144" rx="30" fill="#eaac8b"/><circle cx="128" cy="128" r="36" fill="#355070"/>',
  ),
};

/** A local stand-in for the video site's oEmbed endpoint and its thumbnail. */
async function startFakeVideoSite(): Promise<{ server: Server; port: number }> {
  const thumb = await picture(talkThumb, 'jpeg');
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/oembed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'video',
          version: '1.0',
          provider_name: 'YouTube',
          title: 'Die Stadt für Menschen: wie Straßen wieder zu Plätzen werden',
          author_name: 'Stadtgespräch',
          thumbnail_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/thumb.jpg`,
          thumbnail_width: 480,
          thumbnail_height: 360,
        }),
      );
    } else if (url.pathname === '/thumb.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': thumb.length });
      res.end(thumb);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Public addresses of German networks, weighted roughly like a German audience. */
const networks = [
  ['80.133', 5],
  ['91.40', 3],
  ['88.70', 4],
  ['95.90', 2],
  ['77.10', 3],
  ['46.114', 1],
  ['78.34', 2],
  ['88.198', 1],
] as const;
const addressPool = networks.flatMap(([prefix, weight]) => Array.from({ length: weight }, () => prefix));

/** About a month of visits: more on weekends, slowly growing; each visitor sees 1–4 pages. */
async function simulateVisits(board: TestBoard, now: number): Promise<void> {
  for (let back = 29; back >= 0; back--) {
    const t = now - back * day;
    board.clock.set(t);
    const weekday = new Date(t * 1000).getUTCDay();
    const visitors = Math.round(9 + (29 - back) * 0.45 + (weekday === 0 || weekday === 6 ? 7 : 0) + 3 * Math.sin(back));
    for (let v = 0; v < visitors; v++) {
      const ip = `${addressPool[(v * 7 + back) % addressPool.length]}.${((v * 13) % 250) + 1}.${(v % 200) + 2}`;
      const headers = { 'x-forwarded-for': ip, 'user-agent': `Mozilla/5.0 (Beispiel ${v % 23}) Firefox/140.0` };
      const pages = ['/', '/u/Anna%20Beispiel', '/', '/u/Bert'].slice(0, 1 + ((v + back) % 4));
      for (const path of pages) await (await fetch(board.url + path, { headers })).arrayBuffer();
    }
  }
}

interface Cast {
  [name: string]: Client;
}

async function createUsers(board: TestBoard, names: string[]): Promise<Cast> {
  const cast: Cast = {};
  for (const [i, name] of names.entries()) {
    const client = await member(board, name, `80.133.200.${i + 10}`);
    const svg = avatars[name];
    if (svg) {
      const answer = await client.postMultipart('/api/user/avatar', {}, [
        { name: 'avatar', filename: 'avatar.png', type: 'image/png', data: await picture(svg) },
      ]);
      if (answer.status !== 200) throw new Error(`avatar ${name}: ${answer.text}`);
    }
    cast[name] = client;
  }
  return cast;
}

/** The board's content, each entry written at its own moment of the board's clock. */
async function writeContent(board: TestBoard, cast: Cast, now: number): Promise<{ cafe: number; cafeReply: number }> {
  const at = (secondsAgo: number) => board.clock.set(now - secondsAgo);
  async function post(who: string, secondsAgo: number, content: string, replyTo = 0, image?: Buffer): Promise<number> {
    at(secondsAgo);
    const fields = { content, reply_to: replyTo || undefined };
    const answer = image
      ? await cast[who]!.postMultipart('/api/entry/create', fields, [
          { name: 'file', filename: 'see.png', type: 'image/png', data: image },
        ])
      : await cast[who]!.post('/api/entry/create', fields);
    if (answer.status !== 201) throw new Error(`post by ${who}: ${answer.text}`);
    return answer.body.pid as number;
  }
  async function vote(who: string, pid: number, mode: 'yes' | 'no'): Promise<void> {
    const answer = await cast[who]!.post(`/api/entry/${pid}/vote`, { mode });
    if (answer.status !== 200) throw new Error(`vote by ${who}: ${answer.text}`);
  }

  const welcome = await post(
    'Anna Beispiel',
    6 * day,
    'Willkommen auf dem Board! Hier könnt ihr euch über alles austauschen, was in unserer Stadt passiert. Bitte bleibt freundlich zueinander.',
  );
  await post('Bert', 5 * day, 'Danke fürs Aufsetzen, Anna! Schön, dass es so etwas jetzt gibt.', welcome);

  const poll = await post(
    'Cora',
    day + 2 * hour,
    'Kleine Umfrage: Sollen wir im Juni ein Picknick im Stadtpark organisieren? Stimmt mit Ja oder Nein ab, die Details klären wir dann hier im Thema.',
  );
  const video = await post(
    'Deniz Yılmaz',
    5 * hour,
    'Sehr sehenswerter Vortrag darüber, wie Städte für Fußgänger und Radfahrer umgebaut werden können: https://www.youtube.com/watch?v=8VtQ2Zx9k3E',
  );
  const photo = await post(
    'Bert',
    4 * hour,
    'Gestern Abend am See. Der Sonnenuntergang war unglaublich, das Foto kommt nicht mal annähernd heran.',
    0,
    await picture(sunset),
  );
  const question = await post('Cora', 3 * hour + 50 * minute, 'Wow! Welcher Steg ist das?', photo);
  await post(
    'Bert',
    3 * hour + 30 * minute,
    'Der kleine hinter dem Bootsverleih. Abends ist dort kaum jemand.',
    question,
  );

  const cafe = await post(
    'Anna Beispiel',
    3 * hour,
    'Guten Morgen zusammen! Kennt jemand ein gemütliches Café in der Altstadt, in dem man auch mal zwei Stunden mit dem Laptop sitzen kann?',
  );
  const cafeReply = await post(
    'Bert',
    2 * hour + 40 * minute,
    'Das Café am Markt: schnelles WLAN, viele Steckdosen und die besten Zimtschnecken der Stadt.',
    cafe,
  );
  const confirm = await post(
    'Cora',
    2 * hour + 10 * minute,
    'Kann ich bestätigen. Aber mittags wird es voll, dann lieber vormittags hin.',
    cafeReply,
  );
  await post(
    'Deniz Yılmaz',
    90 * minute,
    'Im Lesecafé der Stadtbibliothek ist es ruhig, und niemand schaut schief, wenn man länger bleibt.',
    cafe,
  );
  await post(
    'Emil',
    70 * minute,
    '@Anna Beispiel und sonntags haben sie dort sogar Kuchen vom Bäcker nebenan.',
    cafeReply,
  );
  await post('Anna Beispiel', 25 * minute, 'Danke euch! Ich probiere morgen früh das Café am Markt aus.', confirm);

  const balcony = await post(
    'Emil',
    40 * minute,
    'Hat jemand Erfahrung mit Balkonkraftwerken? Lohnt sich das bei einem Balkon nach Westen? Infos gibt es unter https://www.verbraucherzentrale.de/balkonkraftwerk',
  );
  await post(
    'Bert',
    12 * minute,
    'Bei uns (Westbalkon) kommen im Jahr gut 300 kWh zusammen. Nach etwa drei Jahren hatte es sich bezahlt gemacht.',
    balcony,
  );

  at(50 * minute);
  const bumped = await cast.Cora!.post(`/api/entry/${welcome}/bump`);
  if (bumped.status !== 200) throw new Error(`bump: ${bumped.text}`);

  for (const who of ['Anna Beispiel', 'Bert', 'Deniz Yılmaz']) await vote(who, poll, 'yes');
  await vote('Emil', poll, 'no');
  for (const who of ['Anna Beispiel', 'Cora', 'Deniz Yılmaz', 'Emil']) await vote(who, photo, 'yes');
  await vote('Anna Beispiel', video, 'yes');
  await vote('Emil', video, 'no');
  await vote('Bert', cafe, 'yes');
  await vote('Cora', cafe, 'yes');
  await vote('Anna Beispiel', cafeReply, 'yes');
  await vote('Anna Beispiel', balcony, 'yes');
  await vote('Deniz Yılmaz', welcome, 'yes');
  return { cafe, cafeReply };
}

/** Waits until the video link's preview is in the thread (fetched in the background), at most 15 s. */
async function waitForPreview(board: TestBoard): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const feed = await board.client().get('/api/entry/feed/0');
    if (feed.body.some((entry: { preview?: unknown }) => entry.preview)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Waits for the view, its tallies and every image, so the picture is the finished page. */
async function settle(page: Page): Promise<void> {
  await page.locator('main h1').waitFor();
  await page.waitForLoadState('networkidle');
  // Lazy images load once scrolled near; a full-page picture needs them all.
  await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
  await waitInPage(page, 'every image loaded', '[...document.images].every((img) => img.complete)');
  await page.evaluate('window.scrollTo(0, 0)');
  await waitInPage(page, 'the busy mark hidden', 'document.getElementById("busy").hidden');
}

async function main(): Promise<void> {
  if (chromiumMissing) {
    console.error(`screenshots: Chromium not found at ${chromiumPath} (set CHROMIUM_PATH)`);
    process.exit(1);
  }
  const now = Math.floor(Date.now() / 1000);
  const video = await startFakeVideoSite();
  const board = await startBoard({
    ...limitsOff, // the sample content is written in a second
    BOARD_TRUST_PROXY: '1',
    BOARD_ASN_DB: '', // empty = the bundled data set, so top_asns shows real network names
    BOARD_PREVIEW: '1',
    BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
    BOARD_PREVIEW_PORTS: String(video.port),
    BOARD_YOUTUBE_OEMBED: `http://127.0.0.1:${video.port}/oembed`,
  });
  const browser = await launchChromium();
  try {
    await board.app.services.asn.ready;
    board.clock.set(now - 31 * day);
    const cast = await createUsers(board, ['Anna Beispiel', 'Bert', 'Cora', 'Deniz Yılmaz', 'Emil']);
    await simulateVisits(board, now);
    const { cafeReply } = await writeContent(board, cast, now);
    await writeAccountContent(board, cast, cast['Anna Beispiel']!, now);
    board.clock.set(now);
    if (!(await waitForPreview(board)))
      console.warn('screenshots: no link preview appeared (is preview fetching built?); continuing without');

    mkdirSync(outDir, { recursive: true });
    const pages = {
      feed: '/',
      thread: `/e/${cafeReply}`,
      profile: '/u/Anna%20Beispiel',
      stats: '/stats',
      settings: '/settings',
      queue: '/mod',
      notifications: '/benachrichtigungen',
    };
    for (const [device, width, height] of [
      ['desktop', 1280, 900],
      ['phone', 390, 844],
    ] as const) {
      const { context } = await newRecordedContext(browser, { width, height });
      const page = await context.newPage();
      await openBoard(page, board, '/login');
      await page.getByLabel('Benutzername').fill('Anna Beispiel');
      await page.getByLabel('Passwort').fill(password);
      await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
      await page.locator('#nav').getByRole('link', { name: 'Anna Beispiel' }).waitFor();
      for (const [name, path] of Object.entries(pages)) {
        await openBoard(page, board, path);
        await settle(page);
        // The phone shows one screen of the page: on the settings, the sessions it is shown for.
        if (name === 'settings' && device === 'phone')
          await page.getByRole('heading', { name: 'Anmeldungen' }).evaluate((heading) => heading.scrollIntoView());
        const file = `${outDir}${name}-${device}.png`;
        await page.screenshot({ path: file, fullPage: device === 'desktop' });
        console.log(`screenshots: ${file}`);
      }
      // Logged out, so the phone's sessions list shows this browser once.
      await page.evaluate('fetch("/api/auth/logout", { method: "POST" })');
      await context.close();
    }
  } finally {
    await browser.close();
    await board.close();
    video.server.close();
  }
}

await main();
