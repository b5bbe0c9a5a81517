/**
 * Everything the tests share, in one import: a real board on port 0 (`startBoard`, or `useBoard`
 * for a whole suite), an HTTP client, the test users, the one error assertion and the OpenAPI
 * check of answers (assertDocumented), rows and files
 * as the board stored them, the admin CLI, image fixtures, moderators, gates that hold a request
 * after its password or image work, a POST whose body comes when the test says, the database's
 * invariants (consistencyProblems), raw HTTP bytes (sendRaw), polling (eventually) and the log's
 * count of a proxy's view notices (noticesLogged).
 * The browser's helpers (helpers/browser.ts) are imported on their own: they load playwright.
 */
export * from './helpers/board.ts';
export * from './helpers/client.ts';
export * from './helpers/members.ts';
export * from './helpers/errors.ts';
export * from './helpers/openapi.ts';
export * from './helpers/stored.ts';
export * from './helpers/old-board.ts';
export * from './helpers/admin.ts';
export * from './helpers/use-board.ts';
export * from './helpers/images.ts';
export * from './helpers/moderators.ts';
export * from './helpers/folders.ts';
export * from './helpers/write-lock-holder.ts';
export * from './helpers/gate.ts';
export * from './helpers/password-gate.ts';
export * from './helpers/passkey-gate.ts';
export * from './helpers/authenticator.ts';
export * from './helpers/passkeys.ts';
export * from './helpers/image-gate.ts';
export * from './helpers/slot-gate.ts';
export * from './helpers/slow-post.ts';
export * from './helpers/consistency.ts';
export * from './helpers/raw-http.ts';
export * from './helpers/eventually.ts';
export * from './helpers/fan-out.ts';
export * from './helpers/pow.ts';
export * from './helpers/webhook.ts';
export * from './helpers/quick-hashes.ts';
export * from './helpers/reauth.ts';
export * from './helpers/page-views.ts';
