/**
 * German-looking entry text for the benchmark seed (bench/seed.ts), so the search cases mean
 * something at a million entries: sentences of everyday words, compound nouns made of common
 * parts ("Balkonkraftwerk", "Wochenmarktstand"), short words such as "KI" in some entries and a
 * rare word in very few. Deterministic for a given random source.
 */

/** The parts of compound nouns; bench/search-attack.ts searches for them too. */
export const parts = [
  'Balkon',
  'Kraft',
  'Werk',
  'Wochen',
  'Markt',
  'Sonnen',
  'Strom',
  'Wasser',
  'Stadt',
  'Rat',
  'Haus',
  'Tür',
  'Fahr',
  'Rad',
  'Weg',
  'Bahn',
  'Hof',
  'Bus',
  'Linie',
  'Schul',
  'Garten',
  'Miet',
  'Preis',
  'Heiz',
  'Kosten',
  'Energie',
  'Spar',
  'Lampe',
  'Wind',
  'Park',
  'Auto',
  'Zug',
  'Brücken',
  'Straßen',
  'Bau',
  'Stelle',
  'Kinder',
  'Spiel',
  'Platz',
  'Feuer',
  'Wehr',
  'Post',
  'Amt',
  'Bürger',
  'Meister',
  'Müll',
  'Abfuhr',
  'Nachbar',
  'Schaft',
  'Dach',
  'Fenster',
  'Keller',
  'Treppe',
  'Licht',
  'Bier',
  'Brot',
  'Bäcker',
  'Kaffee',
  'Küchen',
  'Tisch',
  'Wald',
  'Fluss',
  'Ufer',
  'Berg',
  'Hütte',
  'Rathaus',
  'Netz',
  'Funk',
  'Turm',
  'Handy',
  'Vertrag',
  'Steuer',
  'Erklärung',
  'Arzt',
  'Termin',
  'Praxis',
  'Zahn',
  'Pflege',
  'Dienst',
];

/** Everyday words; the short ones (1–2 letters) are the two-letter search case, the long ones bench/search-attack.ts's costly searches. */
export const everydayWords = [
  'und',
  'der',
  'die',
  'das',
  'ist',
  'nicht',
  'mit',
  'auf',
  'für',
  'ich',
  'es',
  'ein',
  'eine',
  'zu',
  'im',
  'den',
  'von',
  'sich',
  'auch',
  'noch',
  'wie',
  'aber',
  'so',
  'dass',
  'wir',
  'man',
  'hat',
  'schon',
  'nur',
  'am',
  'da',
  'wenn',
  'bei',
  'was',
  'oder',
  'mal',
  'ja',
  'kann',
  'heute',
  'gestern',
  'morgen',
  'wirklich',
  'gut',
  'schlecht',
  'neu',
  'alt',
  'teuer',
  'billig',
  'schön',
  'gibt',
  'wieder',
  'endlich',
  'vielleicht',
  'jemand',
  'weiß',
  'gesehen',
  'gehört',
  'gelesen',
  'gefragt',
  'gebaut',
  'gekauft',
  'Leute',
  'Frage',
  'Antwort',
  'Idee',
  'Problem',
  'Sache',
  'Woche',
  'Jahr',
  'Tag',
  'Abend',
  'Stunde',
  'Minute',
  'Ecke',
  'Nachricht',
  'Meinung',
  'Grund',
  'Erfahrung',
  'Bild',
  'Regen',
  'Sonne',
  'Hitze',
  'Kälte',
  'Straße',
  'Stadt',
  'Dorf',
];

const openers = [
  'Hat jemand',
  'Ich finde',
  'Bei uns',
  'Kennt ihr',
  'Gestern war',
  'Heute gibt es',
  'Weiß jemand, ob',
  'Endlich',
  'Seit Wochen',
];
const endings = ['.', '!', '?', ' …', '.', '.'];

/** The rare word: in about one entry of 50,000 (the rare-word search case). */
export const rareWord = 'Quittengelee';
/** A two-letter word in about one entry of 60 (besides the everyday "es", "im", "am" …). */
export const shortWord = 'KI';

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)]!;
}

/** A compound noun of two or three parts, the later parts lower-cased: "Balkonkraftwerk". */
export function compound(random: () => number): string {
  const count = random() < 0.7 ? 2 : 3;
  let word = pick(parts, random);
  for (let i = 1; i < count; i++) word += pick(parts, random).toLowerCase();
  return random() < 0.2 ? `${word}e` : word;
}

function sentence(random: () => number): string {
  const length = 4 + Math.floor(random() * 10);
  const out = [pick(openers, random)];
  for (let i = 0; i < length; i++) out.push(random() < 0.3 ? compound(random) : pick(everydayWords, random));
  return out.join(' ') + pick(endings, random);
}

/** One entry's text: one to three sentences (about 40–300 characters), now and then the short or the rare word. */
export function germanText(random: () => number): string {
  const count = 1 + Math.floor(random() * 3);
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) sentences.push(sentence(random));
  if (random() < 1 / 60) sentences.push(`Was sagt die ${shortWord} dazu?`);
  if (random() < 1 / 50_000) sentences.push(`Meine Oma macht das beste ${rareWord}.`);
  return sentences.join(' ');
}
