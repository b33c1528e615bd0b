/**
 * add_feedback: a thumbs up/down, score or note on a conversation, turn (trace) or span, stored as the
 * app's feedback control stores it (`feedback.create`). A write: over HTTP it needs Loupe's key.
 */
import { z } from 'zod';
import { FeedbackRecord } from '../../../shared/contract/common.js';
import { KB } from '../budget.js';
import { projectArg } from '../args.js';
import { chooseProject } from '../projects.js';
import { ToolError, tool } from '../tool.js';

/** Who wrote it, so people can tell an agent's feedback from their own in the app. */
export const MCP_CREATOR = 'loupe-mcp';

export const addFeedback = tool({
  name: 'add_feedback',
  title: 'Add feedback',
  description:
    'Record feedback on a conversation, a turn (trace) or a span: thumbs up/down, a score and/or a note, shown in Loupe beside it. ' +
    'A write: over HTTP it needs Loupe\'s API key as a bearer token.',
  budget: 4 * KB,
  write: true,
  input: z.object({
    target: z.enum(['conversation', 'trace', 'span']).describe('what the feedback is about'),
    id: z.string().min(1).describe('its id (conversation id, trace id or span id)'),
    project: projectArg,
    thumbs: z.enum(['up', 'down']).optional(),
    score: z.number().min(0).max(1).optional().describe('0 to 1'),
    note: z.string().max(4000).optional(),
    tags: z.array(z.string().min(1).max(64)).max(20).optional(),
  }),
  output: z.object({ project: z.string(), feedback: FeedbackRecord }),
  async run(args, env) {
    if (env.caller.writeRefusal) throw new ToolError(`add_feedback refused: ${env.caller.writeRefusal}`);
    if (args.thumbs === undefined && args.score === undefined && args.note === undefined && !args.tags?.length) {
      throw new ToolError('arguments "thumbs", "score", "note", "tags": give at least one (thumbs: "up" or "down"; score: 0–1; note: text; tags: words)');
    }
    const { project } = await chooseProject(env, args.project);
    const payload: Record<string, unknown> = {};
    if (args.thumbs) payload.value = args.thumbs;
    if (args.note) payload.note = args.note;
    const record = await env.caller.call(
      'feedback.create',
      {
        svc_ref: `svc:///${project}/${args.target}/${args.id}`,
        feedback_type: args.thumbs ? 'thumbs' : args.score !== undefined ? 'score' : 'note',
        payload,
        creator: MCP_CREATOR,
        scorer_tags: args.tags ?? [],
        scorer_ratings: args.score !== undefined ? { score: args.score } : {},
      },
      env.signal,
    );
    return { structured: { project, feedback: record }, text: `Feedback ${record.id} stored on ${args.target} ${args.id} in project ${project} (${record.feedback_type}${args.note ? `: "${args.note.slice(0, 200)}"` : ''}).` };
  },
});
