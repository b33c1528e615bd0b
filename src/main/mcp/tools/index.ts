/**
 * Every tool of the MCP server, in the order tools/list gives them (a stable order: the 2026-07-28
 * revision asks for one).
 */
import type { ToolDef } from '../tool.js';
import { searchConversations } from './search-conversations.js';
import { getConversation } from './get-conversation.js';
import { getTrace } from './get-trace.js';
import { getSpan } from './get-span.js';
import { querySpans } from './query-spans.js';
import { listAgents } from './list-agents.js';
import { compare } from './compare.js';
import { recentErrors } from './recent-errors.js';
import { listClusters } from './list-clusters.js';
import { queryScores } from './query-scores.js';
import { listProjects } from './list-projects.js';
import { addFeedback } from './add-feedback.js';
import { getTrainingJob, listCheckpoints, listModels, listTrainingJobs } from './training.js';

export const TOOLS: readonly ToolDef[] = [
  searchConversations, getConversation, getTrace, getSpan, querySpans, listAgents, compare, recentErrors, listClusters, queryScores, listProjects, addFeedback,
  listModels, listCheckpoints, listTrainingJobs, getTrainingJob,
];
