import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryPageTitle, userPageTitle } from '../../lib/pages/share.ts';

/** The server's share heads (lib/pages/share.ts) and the front end (web/static/titles.js) give a page the same title. */
const modulePath: string = '../../web/static/titles.js';
const front = (await import(modulePath)) as {
  entryTitle: (entry: { content: string; username: string; deleted: number; removed?: number }) => string;
  pageTitle: (title: string) => string;
};

const texts = [
  'Hallo Welt',
  '  Ich  komme\nmit zwei Freunden ',
  'Wer hat Lust, am Samstag beim Aufräumen im Stadtpark zu helfen? Wir treffen uns um zehn.',
  'x'.repeat(59),
  'x'.repeat(60),
  'x'.repeat(61),
  `${'y'.repeat(40)} ${'z'.repeat(40)}`,
  `${'ab '.repeat(10)}${'q'.repeat(50)}`,
  '😀'.repeat(70),
  'Straße ümlaut '.repeat(8),
  '',
];

test('an entry page has one title on the server and in the browser', () => {
  for (const content of texts) {
    for (const username of ['Anna', 'Anna Q.', '']) {
      assert.equal(
        entryPageTitle({ content, username }),
        front.pageTitle(front.entryTitle({ content, username, deleted: 0 })),
        JSON.stringify({ content, username }),
      );
    }
  }
  assert.equal(
    entryPageTitle({ content: '  Ich  komme\nmit zwei Freunden ', username: 'Anna' }),
    'Ich komme mit zwei Freunden – Anna – Das Board',
  );
  assert.equal(entryPageTitle({ content: '', username: 'Anna' }), 'Bild – Anna – Das Board');
});

test('a profile page has one title on the server and in the browser', () => {
  for (const name of ['Anna', 'Anna Q.', 'Élodie']) assert.equal(userPageTitle(name), front.pageTitle(name));
  assert.equal(userPageTitle('Anna Q.'), 'Anna Q. – Das Board');
});
