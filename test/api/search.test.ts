import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  limitsOff,
  post,
  uidOf,
  useBoard,
  visitor,
  type TestBoard,
} from '../helpers.ts';
import { entryFields } from '../helpers/entries.ts';

/** docs/API.md "Search": German matching, short words, phrases, paging, the author filter and the limits. */

async function found(board: TestBoard, q: string, extra = ''): Promise<string[]> {
  const answer = await visitor(board).get(`/api/search/0?q=${encodeURIComponent(q)}${extra}`);
  assert.equal(answer.status, 200, `${q}: ${answer.text}`);
  assertDocumented(answer);
  return answer.body.map((e: { content: string }) => e.content);
}

/** A fixed German corpus, oldest first. */
const corpus = {
  Anna: [
    'Unser Balkonkraftwerk läuft seit März.',
    'Zwei Balkonkraftwerke auf einem Dach?',
    'Der Wochenmarkt am Rathaus fällt aus.',
    'Die KI schreibt jetzt Gedichte.',
    'Ein KI-Modell für den Stadtrat.',
    'Ich gehe heute ins Kino.',
    'Die Straße vor dem Haus wird gesperrt.',
    'Herr Mueller hat angerufen.',
    'Sie sagte "Hallo Welt" und ging.',
    'Das ist die neue Straße.',
    'Die Straße ist neue Pflaster wert.',
  ],
  Bert: [
    'Mein Kraftwerk ist ein Fahrrad.',
    'KI oder nicht KI, das ist hier die Frage.',
    'Schöne Grüße vom Markt!',
    'E-Mail an: info@example.org',
  ],
} as const;

describe('search: matching German text', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  before(async () => {
    for (let i = 0; i < 11; i++) {
      await post(t.members.Anna, corpus.Anna[i]!);
      if (corpus.Bert[i]) await post(t.members.Bert, corpus.Bert[i]!);
      t.board.clock.advance(1);
    }
  });

  test('a word finds the compounds that contain it, in any letter case', async () => {
    assert.deepEqual(await found(t.board, 'kraftwerk'), [
      'Zwei Balkonkraftwerke auf einem Dach?',
      'Mein Kraftwerk ist ein Fahrrad.',
      'Unser Balkonkraftwerk läuft seit März.',
    ]);
    assert.deepEqual(await found(t.board, 'KRAFTWERKE'), ['Zwei Balkonkraftwerke auf einem Dach?']);
    assert.deepEqual(await found(t.board, 'markt'), [
      'Schöne Grüße vom Markt!',
      'Der Wochenmarkt am Rathaus fällt aus.',
    ]);
    assert.deepEqual(await found(t.board, 'RATHAUS'), ['Der Wochenmarkt am Rathaus fällt aus.']);
  });

  test('an entry must hold every word of q', async () => {
    assert.deepEqual(await found(t.board, 'kraftwerk dach'), ['Zwei Balkonkraftwerke auf einem Dach?']);
    assert.deepEqual(await found(t.board, 'kraftwerk wochenmarkt'), []);
    assert.deepEqual(await found(t.board, '  markt   rathaus  '), ['Der Wochenmarkt am Rathaus fällt aus.']);
  });

  test('words of 1–2 characters match whole words: "KI" finds KI and KI-Modell, not Kino', async () => {
    assert.deepEqual(await found(t.board, 'KI'), [
      'Ein KI-Modell für den Stadtrat.',
      'Die KI schreibt jetzt Gedichte.',
      'KI oder nicht KI, das ist hier die Frage.',
    ]);
    assert.deepEqual(await found(t.board, 'ki gedichte'), ['Die KI schreibt jetzt Gedichte.'], 'with a longer word');
    assert.deepEqual(await found(t.board, 'ki stadtrat'), ['Ein KI-Modell für den Stadtrat.']);
    assert.deepEqual(
      await found(t.board, 'am markt'),
      ['Der Wochenmarkt am Rathaus fällt aus.'],
      '"am" is a word there, not in "vom Markt"',
    );
    assert.deepEqual(await found(t.board, 'e mail'), ['E-Mail an: info@example.org'], 'a one-letter word');
  });

  test('a pair of double quotes makes a phrase; an unbalanced quote is an ordinary character', async () => {
    assert.deepEqual(await found(t.board, '"neue Straße"'), ['Das ist die neue Straße.']);
    assert.deepEqual(await found(t.board, 'neue Straße'), [
      'Die Straße ist neue Pflaster wert.',
      'Das ist die neue Straße.',
    ]);
    assert.deepEqual(
      await found(t.board, 'sagte "Hallo'),
      ['Sie sagte "Hallo Welt" und ging.'],
      'the lone quote is searched as a character',
    );
    assert.deepEqual(await found(t.board, '"Hallo Welt"'), ['Sie sagte "Hallo Welt" und ging.']);
    assert.deepEqual(await found(t.board, '""Hallo'), ['Sie sagte "Hallo Welt" und ging.'], 'an empty pair is nothing');
    assert.deepEqual(
      await found(t.board, '"Hallo Welt'),
      ['Sie sagte "Hallo Welt" und ging.'],
      'a leading lone quote stays with its word',
    );
    assert.deepEqual(
      await found(t.board, '"Hallo Welt" Welt"'),
      ['Sie sagte "Hallo Welt" und ging.'],
      'the third quote is a character of Welt"',
    );
    assert.deepEqual(await found(t.board, '"Hallo Welt" und"'), [], 'und" is not in the text');
  });

  test('query syntax is text: FTS5 operators and special characters are searched literally', async () => {
    for (const q of [
      'NOT',
      'kraftwerk OR markt',
      'kraft*',
      'text:kraft',
      '(markt)',
      'NEAR(a b)',
      '^markt',
      '"',
      '""""',
      "it's",
      'a"b"c"d',
    ]) {
      const answer = await visitor(t.board).get(`/api/search/0?q=${encodeURIComponent(q)}`);
      assert.equal(answer.status, 200, `${q}: ${answer.text}`);
    }
    assert.deepEqual(await found(t.board, 'kraftwerk OR markt'), [], 'OR is a word here');
    assert.deepEqual(await found(t.board, 'info@example.org'), ['E-Mail an: info@example.org']);
  });

  test('German spellings: "Strasse" finds Straße, "Müller" finds Mueller, a decomposed umlaut the composed one', async () => {
    assert.equal((await found(t.board, 'Strasse')).length, 3);
    assert.equal((await found(t.board, 'straße')).length, 3);
    assert.deepEqual(await found(t.board, 'Müller'), ['Herr Mueller hat angerufen.']);
    assert.deepEqual(await found(t.board, 'Gru\u0308ße'), ['Schöne Grüße vom Markt!']);
    assert.deepEqual(await found(t.board, 'GRÜSSE'), ['Schöne Grüße vom Markt!']);
  });

  test('only characters no word is made of: 200 []', async () => {
    assert.deepEqual(await found(t.board, '?!'), []);
    assert.deepEqual(await found(t.board, '-'), []);
  });

  test('each result is a full Entry with latest, newest first', async () => {
    const top = await post(t.members.Anna, 'Frage zum Quittengelee');
    await post(t.members.Bert, 'Antwort ohne das Wort', top);
    const answer = await visitor(t.board).get('/api/search/0?q=quittengelee');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.length, 1);
    assert.deepEqual(
      Object.keys(answer.body[0])
        .filter((k) => k !== 'latest')
        .sort(),
      entryFields,
    );
    assert.equal(answer.body[0].latest.entry.content, 'Antwort ohne das Wort');
    assert.equal(answer.body[0].latest.skipped, 0);
  });

  test('user= narrows to one author (any letter case); an unknown user is 404 user.not_found', async () => {
    assert.deepEqual(await found(t.board, 'KI', '&user=bert'), ['KI oder nicht KI, das ist hier die Frage.']);
    assert.deepEqual(await found(t.board, 'kraftwerk', '&user=Anna'), [
      'Zwei Balkonkraftwerke auf einem Dach?',
      'Unser Balkonkraftwerk läuft seit März.',
    ]);
    assert.deepEqual(
      await found(t.board, 'kraftwerk', '&user='),
      await found(t.board, 'kraftwerk'),
      'an empty user= is no filter',
    );
    assertError(await visitor(t.board).get('/api/search/0?q=ki&user=Niemand'), 404, 'user.not_found');
    assert.ok(uidOf(t.board, 'Bert'));
  });
});

describe('search: paging and input', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  test('20 a page, newest first (created_at, then pid); past the end []', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 45; i++) {
      pids.push(await post(t.members.Anna, `Sonnenschein Nummer ${i}`));
      if (i % 10 === 0) t.board.clock.advance(1);
    }
    const page = async (n: number) =>
      (await visitor(t.board).get(`/api/search/${n}?q=sonnenschein`)).body.map((e: { pid: number }) => e.pid);
    const newest = [...pids].reverse();
    assert.deepEqual(await page(0), newest.slice(0, 20));
    assert.deepEqual(await page(1), newest.slice(20, 40));
    assert.deepEqual(await page(2), newest.slice(40));
    assert.deepEqual(await page(3), []);
    assert.deepEqual(await page(100), []);
  });

  test('q missing, empty, blank or over 200 characters: 400 input.invalid, field q; 200 characters are fine', async () => {
    for (const query of ['', '?q=', '?q=%20%20', '?q=%0A%09', `?q=${'a'.repeat(201)}`, `?q=${'ä'.repeat(201)}`]) {
      assertError(await visitor(t.board).get(`/api/search/0${query}`), 400, 'input.invalid', {
        field: 'q',
        note: query,
        exact: true,
      });
    }
    assert.equal((await visitor(t.board).get(`/api/search/0?q=${'ä'.repeat(200)}`)).status, 200);
  });

  test('page outside 0–100 or not an integer: 400 input.invalid, field page', async () => {
    for (const page of ['101', '-1', 'x', '1.5'])
      assertError(await visitor(t.board).get(`/api/search/${page}?q=abc`), 400, 'input.invalid', 'page');
  });
});

describe('search: rate limit', () => {
  const t = useBoard({ members: ['Anna'] });

  test('30 searches a minute per address; the 31st answers 429 rate.limited with Retry-After; another address goes on', async () => {
    const client = visitor(t.board);
    for (let i = 0; i < 30; i++)
      assert.equal((await client.get(`/api/search/0?q=wort${i}`)).status, 200, `search ${i + 1}`);
    const refused = await client.get('/api/search/0?q=wort');
    assertError(refused, 429, 'rate.limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assertError(await client.get('/api/search/0?q='), 429, 'rate.limited', { note: 'checked before the input' });
    assert.equal((await visitor(t.board).get('/api/search/0?q=wort')).status, 200);
  });
});
