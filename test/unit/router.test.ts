import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRouter } from '../../lib/http/router.ts';

const routes = [
  { method: 'GET', path: '/api/health', name: 'health' },
  { method: 'POST', path: '/api/auth/login', name: 'login' },
  { method: 'GET', path: '/api/u/:username/info', name: 'userInfo' },
  { method: 'GET', path: '/api/u/:username/feed/:page', name: 'userFeed' },
  { method: 'GET', path: '/api/entry/:pid/votes', name: 'votes' },
  { method: 'POST', path: '/api/entry/:pid/vote', name: 'vote' },
  { method: 'POST', path: '/api/entry/:pid/votes', name: 'votesPost' },
  { method: 'GET', path: '/', name: 'home' },
  { method: 'GET', path: '/static/media/*', name: 'media' },
  { method: 'GET', path: '/static/*', name: 'static' },
];
const router = createRouter(routes);

function found(method: string, path: string) {
  const match = router.match(method, path);
  assert.equal(match.kind, 'found', `${method} ${path}`);
  return match as Extract<typeof match, { kind: 'found' }>;
}

test('literal paths match exactly, and only with every segment', () => {
  assert.equal(found('GET', '/api/health').route.name, 'health');
  assert.equal(found('GET', '/').route.name, 'home');
  for (const path of ['/api/health/', '/api/healthz', '/api', '/API/health', '/api/health/x', '']) {
    assert.equal(router.match('GET', path).kind, 'not_found', path);
  }
});

test('parameters are captured by name', () => {
  const match = found('GET', '/api/u/alice/feed/3');
  assert.equal(match.route.name, 'userFeed');
  assert.deepEqual(match.params, { username: 'alice', page: '3' });
});

test('parameters are percent-decoded, slashes included', () => {
  assert.deepEqual(found('GET', '/api/u/J%C3%BCrgen%20M/info').params, { username: 'Jürgen M' });
  assert.deepEqual(found('GET', '/api/u/a%2Fb/info').params, { username: 'a/b' });
});

test('a malformed escape or an empty parameter matches nothing', () => {
  assert.equal(router.match('GET', '/api/u/%E0%A4%A/info').kind, 'not_found');
  assert.equal(router.match('GET', '/api/u/%/info').kind, 'not_found');
  assert.equal(router.match('GET', '/api/u//info').kind, 'not_found');
});

test('a known path with another method lists the allowed methods, GET bringing HEAD', () => {
  assert.deepEqual(router.match('POST', '/api/health'), { kind: 'method_not_allowed', allow: ['GET', 'HEAD'] });
  assert.deepEqual(router.match('GET', '/api/auth/login'), { kind: 'method_not_allowed', allow: ['POST'] });
  assert.deepEqual(router.match('HEAD', '/api/auth/login'), { kind: 'method_not_allowed', allow: ['POST'] });
  assert.deepEqual(router.match('DELETE', '/api/entry/7/votes'), {
    kind: 'method_not_allowed',
    allow: ['GET', 'HEAD', 'POST'],
  });
});

test('the same path with two methods finds each', () => {
  assert.equal(found('GET', '/api/entry/7/votes').route.name, 'votes');
  assert.equal(found('POST', '/api/entry/7/votes').route.name, 'votesPost');
  assert.equal(found('POST', '/api/entry/7/vote').route.name, 'vote');
});

test('HEAD is answered by the GET route', () => {
  assert.equal(found('HEAD', '/api/health').route.name, 'health');
  assert.equal(found('HEAD', '/static/media/a/b.jpg').route.name, 'media');
});

test('a trailing wildcard takes the rest of the path, still percent-encoded', () => {
  assert.deepEqual(found('GET', '/static/media/a/b%20c.jpg').params, { '*': 'a/b%20c.jpg' });
  assert.deepEqual(found('GET', '/static/media/..%2fboard.db').params, { '*': '..%2fboard.db' });
  assert.equal(found('GET', '/static/app.js').route.name, 'static');
  assert.deepEqual(found('GET', '/static/css/site.css').params, { '*': 'css/site.css' });
});

test('the first matching route in table order wins', () => {
  assert.equal(found('GET', '/static/media/x.png').route.name, 'media');
  assert.equal(found('GET', '/static/mediax/x.png').route.name, 'static');
});
