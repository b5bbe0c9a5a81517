/**
 * Sample content of `make screenshots` for the settings page and the moderation queue: Anna
 * Beispiel becomes a moderator, mutes an advertiser, is logged in on two more devices, and two
 * entries wait in the queue with their reports. Everything goes through the real API.
 */
import { day, makeModerator, member, password, visitor, type Client, type TestBoard } from '../helpers.ts';

const hour = 3600;
const firefoxOnWindows = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0';
const safariOnIphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';

async function expectStatus(what: string, answer: Promise<{ status: number; text: string }>): Promise<void> {
  const got = await answer;
  if (got.status !== 200) throw new Error(`${what}: ${got.status} ${got.text}`);
}

async function entry(who: Client, content: string): Promise<number> {
  const answer = await who.post('/api/entry/create', { content });
  if (answer.status !== 201) throw new Error(`post: ${answer.text}`);
  return answer.body.pid as number;
}

/** `anna` is Anna Beispiel's API client from the main content; its session ends here, so the settings page shows named devices only. */
export async function writeAccountContent(
  board: TestBoard,
  cast: Record<string, Client>,
  anna: Client,
  now: number,
): Promise<void> {
  makeModerator(board, 'Anna Beispiel');
  board.clock.set(now - 9 * hour);
  const advertiser = await member(board, 'Uhrenhandel24', '80.133.200.40');
  const ad = await entry(
    advertiser,
    'Markenuhren zu Spottpreisen! Nur heute, nur solange der Vorrat reicht, Link im Profil.',
  );
  board.clock.set(now - 7 * hour);
  const grumbler = await member(board, 'Grantler', '80.133.200.41');
  const rant = await entry(
    grumbler,
    'Radfahrer gehören nicht in die Innenstadt. Wer das anders sieht, hat schlicht keine Ahnung.',
  );

  board.clock.set(now - 6 * hour);
  await expectStatus('report', cast.Bert!.post(`/api/entry/${ad}/report`, { reason: 'Werbung' }));
  await expectStatus(
    'report',
    cast.Cora!.post(`/api/entry/${ad}/report`, { reason: 'Spam, schon der dritte solche Beitrag heute' }),
  );
  await expectStatus(
    'report',
    cast['Deniz Yılmaz']!.post(`/api/entry/${rant}/report`, { reason: 'Herablassend gegenüber allen, die Rad fahren' }),
  );
  await expectStatus('mute', anna.post('/api/user/mute', { user: 'Uhrenhandel24' }));
  await expectStatus('logout', anna.post('/api/auth/logout'));

  for (const [userAgent, daysAgo] of [
    [firefoxOnWindows, 12],
    [safariOnIphone, 3],
  ] as const) {
    board.clock.set(now - daysAgo * day);
    await expectStatus(
      'login',
      visitor(board).post(
        '/api/auth/login',
        { user: 'Anna Beispiel', pass: password, timeout: 2_592_000 },
        { 'user-agent': userAgent },
      ),
    );
  }
}
