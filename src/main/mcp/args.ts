/**
 * Arguments several tools share, with the descriptions agents read in tools/list.
 */
import { z } from 'zod';
import { DateTimeIn } from '../../shared/contract/common.js';

export const projectArg = z
  .string()
  .min(1)
  .optional()
  .describe('Loupe project id (e.g. "local/demo"); default: the most recently active project (id lookups try every project)');

const when = (what: string) =>
  DateTimeIn.optional().describe(`${what}, ISO 8601 (e.g. "2026-11-20T00:00:00Z"; no offset means UTC)`);
export const sinceArg = when('Only activity at or after this time');
export const untilArg = when('Only activity before this time');

export const cursorArg = z.string().optional().describe('The next_cursor of the previous answer, to read the next page (leave out for the first page)');
