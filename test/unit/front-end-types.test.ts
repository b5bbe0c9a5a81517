import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { frontEndTypes, frontEndTypesFile } from '../../lib/openapi/front-end-types.ts';

test("the front end's API types (web/api-types.d.ts) are the OpenAPI schemas as they are now", () => {
  assert.equal(
    readFileSync(frontEndTypesFile, 'utf8'),
    frontEndTypes(),
    'web/api-types.d.ts is out of date: run `make front-end-files`',
  );
});
