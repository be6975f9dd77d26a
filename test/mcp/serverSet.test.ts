/**
 * The pure step of a changing MCP server set: only the difference is stopped and started, an
 * unchanged entry (same config object, same held state) keeps its connection.
 */
import { expect, test } from 'vitest';
import { planServerSet, type ServerEntry } from '../../src/mcp/serverSet.js';

const a: ServerEntry = { kind: 'start', config: { command: 'a' } };
const b: ServerEntry = { kind: 'start', config: { command: 'b' } };
const off: ServerEntry = { kind: 'held', status: 'disabled', reason: 'off' };

test('new servers start, removed ones stop, unchanged ones are kept', () => {
  expect(planServerSet(new Map([['a', a]]), { a, b })).toEqual({ stop: [], start: ['b'] });
  expect(planServerSet(new Map([['a', a], ['b', b]]), { b })).toEqual({ stop: ['a'], start: [] });
  expect(planServerSet(new Map(), {})).toEqual({ stop: [], start: [] });
});

test('a changed entry is stopped and started again: a new config object, or switched off and on', () => {
  expect(planServerSet(new Map([['a', a]]), { a: { kind: 'start', config: { command: 'a' } } })).toEqual({ stop: ['a'], start: ['a'] });
  expect(planServerSet(new Map([['a', a]]), { a: off })).toEqual({ stop: ['a'], start: ['a'] });
  expect(planServerSet(new Map([['a', off]]), { a: { ...off } })).toEqual({ stop: [], start: [] });
  expect(planServerSet(new Map([['a', off]]), { a })).toEqual({ stop: ['a'], start: ['a'] });
});
