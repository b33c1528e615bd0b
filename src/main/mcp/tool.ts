/**
 * The shape of one MCP tool: its name and arguments (the interface agents see), its byte budget, a
 * zod schema for its input and for its structured output, and a `run` over the tool environment.
 * Tools call contract operations through the environment's Caller (transport → dispatch → service →
 * store), so their answers are the pages' answers.
 */
import type { z } from 'zod';
import type { Caller } from './caller.js';

/**
 * Which tool argument an operation's 422 location means: `argOf(['body','query','$expr',…])` of
 * query_spans names "filter". Default (errors.ts): the location after "body", dotted.
 */
export type ArgOf = (loc: (string | number)[]) => string;

export interface ToolEnv {
  caller: Caller;
  /** Fires when the agent cancels the call or goes away. */
  signal?: AbortSignal;
}

/** Both forms of an answer: readable text for the model, structured content matching `output`. */
export interface Answer<T> {
  structured: T;
  text: string;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Bytes of the whole answer (text + structured JSON), stated in the description. */
  budget: number;
  input: I;
  output: O;
  /** Writes something (add_feedback): needs the key over HTTP. */
  write?: boolean;
  /** Which tool argument an operation's 422 location names (default: the location itself). */
  argOf?: ArgOf;
  run(args: z.output<I>, env: ToolEnv): Promise<Answer<z.output<O>>>;
}

export const tool = <I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> => def;

/** A refusal meant for the agent (bad argument, nothing found): answered as an `isError` tool result. */
export class ToolError extends Error {}
