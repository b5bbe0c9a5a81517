import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createResetLink } from '../../lib/accounts/reset-links.ts';
import { savePreview } from '../../lib/preview/store.ts';
import { routes } from '../../lib/routes.ts';
import {
  accountRemovalDone,
  addPasskey,
  authenticatorFor,
  passkeySignIn,
  type SoftAuthenticator,
  imageFixture,
  limitsOff,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Answer,
  type Client,
} from '../helpers.ts';
import { fakeBrowser } from '../helpers/push.ts';

/**
 * The response cache's invalidation points (lib/http/response-cache.ts), checked instead of listed:
 * every write route of the route table has a case here, and after each case every kind of cached
 * answer (feed pages, threads, user feeds, search pages, Atom feeds, share pages) that the board
 * serves equals the answer it builds afresh once the cache is dropped. A write that changes what
 * an answer shows without moving its version fails here; a new write route without a case fails
 * the first test. The background writes (a link preview saved, an account's removal slices) have
 * cases too; another process's commit is response-cache-kinds.test.ts's.
 */

const t = useBoard({
  env: { ...limitsOff, BOARD_FEDERATION: 'allowlist' },
  members: ['Anna', 'Bert'],
  moderators: ['Moni'],
});

/** Paula's client, passkey and recovery codes, for the passkey cases. */
const keys: { paula?: Client; authenticator?: SoftAuthenticator; codes: string[] } = { codes: [] };

/** The federation inboxes' cases: an activity POST without a signature (refused, 401). */
const unsigned = (path: string) =>
  visitor(t.board).send(
    'POST',
    path,
    JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'http://127.0.0.1:9/follow',
      type: 'Follow',
      actor: 'http://127.0.0.1:9/a',
      object: `${t.board.config.origin}/ap/actor/board`,
    }),
    { 'content-type': 'application/activity+json' },
  );

/** What the cases share: the thread they write in. */
const state = { root: 0, reply: 0, image: 0, invite: 0, link: 'https://example.org/holunder' };

/** The cached answers a case is checked on, for the entries it knows now. */
function watched(): string[] {
  const entries = [state.root, state.reply, state.image].filter((pid) => pid > 0);
  return [
    '/api/entry/feed/0',
    '/api/entry/feed/1',
    ...entries.map((pid) => `/api/entry/${pid}/thread`),
    '/api/u/Anna/feed/0',
    '/api/u/Bert/feed/0',
    '/api/search/0?q=holunder',
    '/api/search/0?q=holunder&user=Bert',
    '/feed.atom',
    ...entries.map((pid) => `/e/${pid}/feed.atom`),
    '/u/Anna/feed.atom',
    '/u/Bert/feed.atom',
    ...entries.map((pid) => `/e/${pid}`),
    '/u/Anna',
    '/u/Bert',
    '/?seite=2',
    '/u/Anna?seite=2',
    '/suche?q=holunder',
    '/modlog',
  ];
}

/** Status and body of every watched answer, as a visitor gets it now. */
async function readAll(paths: string[]): Promise<Map<string, string>> {
  const reader = visitor(t.board);
  const answers = new Map<string, string>();
  for (const path of paths) {
    const answer = await reader.get(path);
    answers.set(path, `${answer.status}\n${answer.text}`);
  }
  return answers;
}

/**
 * Runs a write with every watched answer in the cache, then asserts each answer served now is the
 * one built afresh (the whole cache dropped, as another process's commit drops it).
 */
async function checkWrite(name: string, write: () => Promise<void> | void): Promise<void> {
  const paths = watched();
  await readAll(paths); // now cached
  await write();
  const served = await readAll(paths);
  t.board.app.services.db.changes.everythingChanged();
  const fresh = await readAll(paths);
  for (const path of paths)
    assert.equal(served.get(path), fresh.get(path), `${name}: ${path} is served stale from the cache`);
}

const expect = async (answer: Promise<Answer>, status = 200): Promise<Answer> => {
  const settled = await answer;
  assert.equal(settled.status, status, `${settled.request?.method} ${settled.request?.path}: ${settled.text}`);
  return settled;
};

const member = (name: 'Anna' | 'Bert' | 'Moni'): Client => t.members[name];

/**
 * The write cases, by route (method and path as the route table has them), in the order they run:
 * several for a route where the cache is told in different ways. Each reaches its write through
 * the API, as a user does.
 */
const cases: [route: string, name: string, write: () => Promise<void>][] = [
  [
    'POST /api/entry/create',
    'a thread',
    async () => {
      state.root = await post(member('Anna'), `Holunder blüht ${state.link}`);
    },
  ],
  [
    'POST /api/entry/create',
    'a reply',
    async () => {
      state.reply = await post(member('Bert'), 'Holunder auch bei mir', state.root);
    },
  ],
  [
    'POST /api/entry/create',
    'an entry with an image',
    async () => {
      const data = await imageFixture({ format: 'png' });
      const answer = await expect(
        member('Bert').postMultipart('/api/entry/create', { content: 'Holunderbild', alt: 'Dolden' }, [
          { name: 'image', filename: 'h.png', type: 'image/png', data },
        ]),
        201,
      );
      state.image = answer.body.pid;
    },
  ],
  [
    'POST /api/entry/:pid/edit',
    'an edit',
    async () => {
      await expect(member('Bert').post(`/api/entry/${state.reply}/edit`, { content: 'Holunder und Flieder' }));
    },
  ],
  [
    'POST /api/entry/:pid/vote',
    'a vote',
    async () => {
      await expect(member('Bert').post(`/api/entry/${state.root}/vote`, { mode: 'yes' }));
    },
  ],
  [
    'POST /api/entry/:pid/bump',
    'a bump',
    async () => {
      await post(member('Bert'), 'Holunder später');
      await expect(member('Bert').post(`/api/entry/${state.root}/bump`));
    },
  ],
  [
    'POST /api/impression',
    "a page view's beacon",
    async () => {
      await expect(visitor(t.board).post('/api/impression', { page: `/e/${state.reply}` }));
    },
  ],
  [
    'POST /api/entry/:pid/report',
    'a report',
    async () => {
      await expect(visitor(t.board).post(`/api/entry/${state.reply}/report`, { reason: 'Spam' }));
    },
  ],
  [
    'POST /api/mod/entry/:pid/dismiss',
    'reports dismissed',
    async () => {
      await expect(member('Moni').post(`/api/mod/entry/${state.reply}/dismiss`, { reason: 'kein Spam' }));
    },
  ],
  [
    'POST /api/mod/entry/:pid/remove',
    'a removal',
    async () => {
      await expect(member('Moni').post(`/api/mod/entry/${state.reply}/remove`, { reason: 'Werbung' }));
    },
  ],
  [
    'POST /api/mod/entry/:pid/restore',
    'a restore',
    async () => {
      await expect(member('Moni').post(`/api/mod/entry/${state.reply}/restore`, { reason: 'doch keine Werbung' }));
    },
  ],
  [
    'POST /api/entry/:pid/delete',
    'a delete',
    async () => {
      await expect(member('Bert').post(`/api/entry/${state.image}/delete`));
    },
  ],
  [
    'POST /api/user/rename',
    'a rename',
    async () => {
      await expect(member('Bert').post('/api/user/rename', { user: 'bert' }));
    },
  ],
  [
    'POST /api/user/avatar',
    'an avatar',
    async () => {
      const data = await imageFixture({ format: 'png', background: '#0a0' });
      await expect(
        member('Bert').postMultipart('/api/user/avatar', {}, [
          { name: 'avatar', filename: 'a.png', type: 'image/png', data },
        ]),
      );
    },
  ],
  [
    'POST /api/mod/user/:username/avatar/remove',
    'a moderator removes an avatar',
    async () => {
      await expect(member('Moni').post('/api/mod/user/Bert/avatar/remove', { reason: 'unpassend' }));
    },
  ],
  [
    'POST /api/mod/user/:username/ban',
    'a ban with purge',
    async () => {
      await expect(member('Moni').post('/api/mod/user/Bert/ban', { reason: 'Spam', days: '3', purge: '1' }));
    },
  ],
  [
    'POST /api/mod/user/:username/unban',
    'an unban',
    async () => {
      await expect(member('Moni').post('/api/mod/user/Bert/unban', { reason: 'Versehen' }));
    },
  ],
  [
    'POST /api/user/mute',
    'a mute',
    async () => {
      await expect(member('Anna').post('/api/user/mute', { user: 'Moni' }));
    },
  ],
  [
    'POST /api/user/unmute',
    'an unmute',
    async () => {
      await expect(member('Anna').post('/api/user/unmute', { user: 'Moni' }));
    },
  ],
  [
    'POST /api/user/notifications/read',
    'notifications read',
    async () => {
      await expect(member('Anna').post('/api/user/notifications/read'));
    },
  ],
  [
    'POST /api/user/feed-token',
    'a private feed',
    async () => {
      await expect(member('Anna').post('/api/user/feed-token'));
    },
  ],
  [
    'POST /api/user/feed-token/revoke',
    'the private feed ended',
    async () => {
      await expect(member('Anna').post('/api/user/feed-token/revoke'));
    },
  ],
  [
    'POST /api/entry/:pid/follow',
    'a follow',
    async () => {
      await expect(member('Moni').post(`/api/entry/${state.root}/follow`));
    },
  ],
  [
    'POST /api/entry/:pid/unfollow',
    'an unfollow',
    async () => {
      await expect(member('Moni').post(`/api/entry/${state.root}/unfollow`));
    },
  ],
  [
    'POST /api/user/following/own-threads',
    "the author's default follow switched",
    async () => {
      await expect(member('Anna').post('/api/user/following/own-threads', { follow: '0' }));
      await expect(member('Anna').post('/api/user/following/own-threads', { follow: '1' }));
    },
  ],
  [
    'POST /api/user/push',
    'a push subscription',
    async () => {
      const browser = fakeBrowser();
      const endpoint = 'https://push.example.org/abo/anna';
      await expect(member('Anna').post('/api/user/push', { endpoint, p256dh: browser.p256dh, auth: browser.auth }));
    },
  ],
  [
    'POST /api/user/push/delete',
    'a push subscription ended',
    async () => {
      await expect(member('Anna').post('/api/user/push/delete'));
    },
  ],
  [
    'POST /api/auth/newuser',
    'a registration',
    async () => {
      await expect(visitor(t.board).post('/api/auth/newuser', { user: 'Cora', pass1: password, pass2: password }), 201);
    },
  ],
  [
    'POST /api/mod/registration',
    'the door switched to approval',
    async () => {
      await expect(member('Moni').post('/api/mod/registration', { mode: 'approval' }));
    },
  ],
  [
    'POST /api/mod/federation/instances',
    'an instance blocked: its follows end, no page shows them',
    async () => {
      await expect(member('Moni').post('/api/mod/federation/instances', { instance: 'spam.example', action: 'block' }));
    },
  ],
  [
    'POST /ap/actor/:identifier/inbox',
    "an unsigned activity at an actor's inbox: refused, nothing changes",
    async () => {
      // Its instance allowed (for the shared inbox's case below too), so the missing signature is what refuses it.
      await expect(member('Moni').post('/api/mod/federation/instances', { instance: '127.0.0.1:9', action: 'allow' }));
      await expect(unsigned('/ap/actor/board/inbox'), 401);
    },
  ],
  [
    'POST /ap/inbox',
    'an unsigned activity at the shared inbox: refused, nothing changes',
    async () => {
      await expect(unsigned('/ap/inbox'), 401);
    },
  ],
  [
    'POST /api/mod/applications/:username/approve',
    'an application and its approval',
    async () => {
      const application = 'Ich schreibe gern über Holunder und Gärten.';
      const fields = { pass1: password, pass2: password, application };
      await expect(visitor(t.board).post('/api/auth/newuser', { user: 'Dora', ...fields }), 202);
      await expect(member('Moni').post('/api/mod/applications/Dora/approve'));
      await expect(visitor(t.board).post('/api/auth/newuser', { user: 'Emma', ...fields }), 202);
    },
  ],
  [
    'POST /api/mod/applications/:username/reject',
    'a rejected application',
    async () => {
      await expect(member('Moni').post('/api/mod/applications/Emma/reject', { reason: 'nein' }));
    },
  ],
  [
    'POST /api/mod/applications/reject',
    'a wave of applications rejected in one step',
    async () => {
      const application = 'Ich schreibe gern über Holunder und Gärten.';
      const fields = { pass1: password, pass2: password, application };
      await expect(visitor(t.board).post('/api/auth/newuser', { user: 'Fina', ...fields }), 202);
      const to = String(t.board.clock.now());
      const done = await expect(member('Moni').post('/api/mod/applications/reject', { from: '0', to }));
      assert.deepEqual(done.body, { rejected: 1, usernames: ['Fina'] });
      await expect(member('Moni').post('/api/mod/registration', { mode: 'open' }));
    },
  ],
  [
    'POST /api/user/invites',
    'an invite',
    async () => {
      state.invite = (await expect(member('Anna').post('/api/user/invites'), 201)).body.id;
    },
  ],
  [
    'POST /api/user/invites/:id/revoke',
    'a revoked invite',
    async () => {
      await expect(member('Anna').post(`/api/user/invites/${state.invite}/revoke`));
    },
  ],
  [
    'POST /api/mod/user/:username/trust',
    'a trust level set by hand',
    async () => {
      await expect(member('Moni').post('/api/mod/user/Bert/trust', { level: 1 }));
    },
  ],
  [
    'POST /api/auth/login',
    'a login',
    async () => {
      await expect(visitor(t.board).post('/api/auth/login', { user: 'Cora', pass: password }));
    },
  ],
  [
    'POST /api/auth/logout',
    'a logout',
    async () => {
      const cora = visitor(t.board);
      await expect(cora.post('/api/auth/login', { user: 'Cora', pass: password }));
      await expect(cora.post('/api/auth/logout'));
    },
  ],
  [
    'POST /api/user/sessions/:id/revoke',
    'a session ended',
    async () => {
      const cora = visitor(t.board);
      await expect(cora.post('/api/auth/login', { user: 'Cora', pass: password }));
      const sessions = await expect(cora.get('/api/user/sessions'));
      const other = sessions.body.find((session: { current: number }) => session.current === 0);
      await expect(cora.post(`/api/user/sessions/${other.id}/revoke`));
    },
  ],
  [
    'POST /api/user/sessions/revoke-others',
    'the other sessions ended',
    async () => {
      const cora = visitor(t.board);
      await expect(cora.post('/api/auth/login', { user: 'Cora', pass: password }));
      await expect(cora.post('/api/user/sessions/revoke-others'));
    },
  ],
  [
    'POST /api/user/password',
    'a password change',
    async () => {
      const cora = visitor(t.board);
      await expect(cora.post('/api/auth/login', { user: 'Cora', pass: password }));
      const next = `${password} 2`;
      await expect(cora.post('/api/user/password', { pass: password, pass1: next, pass2: next }));
      await expect(cora.post('/api/user/password', { pass: next, pass1: password, pass2: password }));
    },
  ],
  // Passkeys and recovery codes (docs/API.md "Passkeys", "Recovery codes"): Paula's, made here.
  [
    'POST /api/user/passkeys/options',
    'a passkey registration begun',
    async () => {
      keys.paula = await visitor(t.board).signUp('Paula');
      await expect(keys.paula.post('/api/user/passkeys/options', { pass1: password }));
    },
  ],
  [
    'POST /api/user/passkeys',
    'a passkey registered',
    async () => {
      keys.authenticator = authenticatorFor(t.board);
      await expect(addPasskey(keys.paula!, keys.authenticator, 'Handy'), 201);
    },
  ],
  [
    'POST /api/auth/passkey/options',
    'a passkey sign-in begun',
    async () => {
      await expect(visitor(t.board).post('/api/auth/passkey/options'));
    },
  ],
  [
    'POST /api/auth/passkey/login',
    'a passkey sign-in',
    async () => {
      await expect(passkeySignIn(visitor(t.board), keys.authenticator!));
    },
  ],
  [
    'POST /api/user/recovery-codes',
    'recovery codes made',
    async () => {
      keys.codes = (await expect(keys.paula!.post('/api/user/recovery-codes', { pass1: password }))).body.codes;
    },
  ],
  [
    'POST /api/auth/recover',
    'a password set with a recovery code',
    async () => {
      const fields = { user: 'Paula', code: keys.codes[0], pass1: password, pass2: password };
      keys.paula = visitor(t.board);
      await expect(keys.paula.post('/api/auth/recover', fields));
    },
  ],
  [
    'POST /api/user/passkeys/:id/delete',
    'a passkey deleted',
    async () => {
      const [passkey] = (await expect(keys.paula!.get('/api/user/passkeys'))).body;
      await expect(keys.paula!.post(`/api/user/passkeys/${passkey.id}/delete`, { pass1: password }));
    },
  ],
  [
    'POST /api/auth/reset/check',
    'a reset link checked',
    async () => {
      const token = createResetLink(t.board.app.services.db, uidOf(t.board, 'Cora'), t.board.clock.now());
      await expect(visitor(t.board).post('/api/auth/reset/check', { token }));
    },
  ],
  [
    'POST /api/auth/reset',
    'a password reset',
    async () => {
      const token = createResetLink(t.board.app.services.db, uidOf(t.board, 'Cora'), t.board.clock.now());
      await expect(visitor(t.board).post('/api/auth/reset', { token, pass1: password, pass2: password }));
    },
  ],
  [
    'background',
    'a link preview saved',
    async () => {
      savePreview(
        t.board.app.services.db,
        { url: state.link, kind: 'page', title: 'Holunder im Garten', site: 'example.org', thumb: '' },
        t.board.clock.now(),
      );
    },
  ],
  [
    'POST /api/user/delete',
    "an account's deletion and its removal slices",
    async () => {
      await expect(member('Anna').post('/api/user/delete', { pass1: password }));
      await accountRemovalDone(t.board);
    },
  ],
];

test('every write route of the route table has a case here', () => {
  const writeRoutes = routes.filter((route) => route.method !== 'GET').map((route) => `${route.method} ${route.path}`);
  const covered = new Set(cases.map(([route]) => route));
  assert.deepEqual(
    writeRoutes.filter((route) => !covered.has(route)),
    [],
    'a write route without a case: add one below',
  );
  assert.deepEqual(
    [...covered].filter((route) => route !== 'background' && !writeRoutes.includes(route)),
    [],
    'a case for a route the table no longer has',
  );
});

test('the check sees a stale answer: a write that tells the cache nothing is caught', async () => {
  state.root = await post(member('Anna'), 'Holunder zum Anfang');
  await assert.rejects(
    checkWrite('a change behind the cache', () => {
      t.board.app.services.db.run("UPDATE entries SET content = 'Holunder heimlich' WHERE pid = ?", state.root);
    }),
    /a change behind the cache: .* is served stale from the cache/,
  );
});

test('after every write, each cached answer equals the one built afresh', async () => {
  for (const [route, name, write] of cases) {
    t.board.clock.advance(1);
    await checkWrite(`${route} (${name})`, write);
  }
});
