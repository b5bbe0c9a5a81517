import { fileURLToPath } from 'node:url';
import { schemas } from './components.ts';
import type { JsonSchema } from './kit.ts';

/**
 * The OpenAPI document's shared schemas as TypeScript declarations for the front end's JSDoc types
 * (web/api-types.d.ts, `Api.Entry` ...), so the page's idea of an Entry is the document's and never
 * a second description. test/unit/front-end-types.test.ts checks the file is current; `make
 * front-end-files` writes it again.
 */

export const frontEndTypesFile = fileURLToPath(new URL('../../web/api-types.d.ts', import.meta.url));

const refPrefix = '#/components/schemas/';

function typeOf(schema: JsonSchema, indent: string): string {
  if (typeof schema.$ref === 'string') return schema.$ref.slice(refPrefix.length);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `${wrapped(typeOf(schema.items as JsonSchema, indent))}[]`;
    case 'object':
      return objectType(schema, indent);
    default:
      throw new Error(`front-end types: no TypeScript type for ${JSON.stringify(schema)}`);
  }
}

function wrapped(type: string): string {
  return type.includes(' | ') ? `(${type})` : type;
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra && typeof extra === 'object')
    return `Record<string, ${typeOf(extra as JsonSchema, indent)}>`;
  const inner = `${indent}  `;
  const members = Object.entries(properties).map(([name, property]) => {
    const doc = typeof property.description === 'string' ? `${inner}/** ${property.description} */\n` : '';
    return `${doc}${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};\n`;
  });
  return `{\n${members.join('')}${indent}}`;
}

/**
 * The shared schema whose members are all members of `schema`, the same and as required, with the
 * most of them: EntryWithLatest is an Entry with `latest`, so it says so instead of listing the
 * Entry's members again.
 */
export function baseOf(
  name: string,
  schema: JsonSchema,
  all: Readonly<Record<string, JsonSchema>> = schemas,
): string | undefined {
  const members = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  let best: { name: string; size: number } | undefined;
  for (const [other, candidate] of Object.entries(all)) {
    const theirs = (candidate.properties ?? {}) as Record<string, JsonSchema>;
    const size = Object.keys(theirs).length;
    if (other === name || candidate.type !== 'object' || size === 0 || size >= Object.keys(members).length) continue;
    const theirRequired = new Set((candidate.required ?? []) as string[]);
    const fits = Object.entries(theirs).every(
      ([member, type]) =>
        JSON.stringify(members[member]) === JSON.stringify(type) && theirRequired.has(member) === required.has(member),
    );
    if (fits && size > (best?.size ?? 0)) best = { name: other, size };
  }
  return best?.name;
}

function interfaceOf(name: string, schema: JsonSchema): string {
  if (schema.type !== 'object' || !schema.properties) return `  type ${name} = ${typeOf(schema, '  ')};\n`;
  const base = baseOf(name, schema);
  if (!base) return `  interface ${name} ${typeOf(schema, '  ')}\n`;
  const inherited = new Set(Object.keys(schemas[base]!.properties as object));
  const own = Object.fromEntries(
    Object.entries(schema.properties as Record<string, JsonSchema>).filter(([member]) => !inherited.has(member)),
  );
  return `  interface ${name} extends ${base} ${typeOf({ ...schema, properties: own }, '  ')}\n`;
}

export function frontEndTypes(): string {
  const interfaces = Object.entries(schemas).map(([name, schema]) => interfaceOf(name, schema));
  return [
    '// Written by lib/openapi/front-end-types.ts from the OpenAPI schemas (lib/openapi/components.ts); do not edit.',
    "// The front end's JSDoc names these as Api.Entry, Api.OwnUser ...",
    'declare namespace Api {',
    interfaces.join('\n').trimEnd(),
    '}',
    '',
  ].join('\n');
}
