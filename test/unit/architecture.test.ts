import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

/** The layers as .dependency-cruiser.mjs orders them (`make lint` enforces that order). */
const { layers } = (await import('../../.dependency-cruiser.mjs' as string)) as { layers: Record<string, string[]> };
const architecture = readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8');

/** The unit names of lib/: its folders, and its files at the root. */
const libUnits = readdirSync(new URL('../../lib/', import.meta.url), { withFileTypes: true }).map(
  (entry) => entry.name,
);

test("docs/ARCHITECTURE.md's picture of the layers is the order .dependency-cruiser.mjs enforces", () => {
  const picture = architecture.split('```')[1]!;
  const drawn: Record<string, string[]> = {};
  let layer = '';
  for (const line of picture.split('\n')) {
    const chunks = line.trim().split(/\s{2,}/);
    if (chunks[0]! in layers) layer = chunks.shift()!;
    if (layer && chunks[0]) (drawn[layer] ??= []).push(...chunks[0].split(/\s+/));
  }
  const names = (units: string[]) => units.map((unit) => unit.replace(/\/$/, ''));
  for (const [name, units] of Object.entries(layers)) assert.deepEqual(names(drawn[name] ?? []), units, name);
});

test('every unit of lib/ has its place in the layers and its line in "The units"', () => {
  const placed = Object.values(layers).flat();
  for (const unit of libUnits) {
    assert.ok(placed.includes(unit), `lib/${unit} has no place in .dependency-cruiser.mjs layers`);
    const named = unit.endsWith('.ts') ? `lib/${unit}` : `lib/${unit}/`;
    assert.ok(architecture.includes(named), `docs/ARCHITECTURE.md "The units" does not name ${named}`);
  }
  for (const unit of placed) assert.ok(libUnits.includes(unit), `layers name lib/${unit}, which does not exist`);
});
