/**
 * Every view and its deep link, relative to `#/p/<project>/` (hooks/project projectPath). The shell
 * (App.tsx) builds navigation and the router from this list. Hash routes so the same build works from
 * file:// in Electron and from the loopback server. A bare `#/agents` redirects into the last project.
 * The views people open first (conversations, a conversation, a trace) are in the main bundle; the
 * others load on first visit (their own chunks: charts, the spans explorer, diffs), so the app boots
 * with less to parse. A view whose code cannot be fetched (server away) loads again when the server
 * is back (shell/lazyView.tsx).
 */
import type { ReactElement } from 'react';
import { lazyView } from './shell/lazyView';
import { ConversationsPage } from './pages/conversations/ConversationsPage';
import { ConversationPage } from './pages/conversations/ConversationPage';
import { TracePage } from './pages/trace/TracePage';

const AgentsPage = lazyView(() => import('./pages/agents/AgentsPage').then((m) => m.AgentsPage));
const SpansPage = lazyView(() => import('./pages/spans/SpansPage').then((m) => m.SpansPage));
const ThreadsPage = lazyView(() => import('./pages/threads/ThreadsPage').then((m) => m.ThreadsPage));
const TrainingPage = lazyView(() => import('./pages/training/TrainingPage').then((m) => m.TrainingPage));
const SettingsPage = lazyView(() => import('./pages/settings/SettingsPage').then((m) => m.SettingsPage));
const ReplaysPage = lazyView(() => import('./pages/replays/ReplaysPage').then((m) => m.ReplaysPage));
const ReplayReportPage = lazyView(() => import('./pages/replays/ReplayReportPage').then((m) => m.ReplayReportPage));
const LoopPage = lazyView(() => import('./pages/replays/LoopPage').then((m) => m.LoopPage));
const ClustersPage = lazyView(() => import('./pages/clusters/ClustersPage').then((m) => m.ClustersPage));
const ReviewPage = lazyView(() => import('./pages/review/ReviewPage').then((m) => m.ReviewPage));
const ComparePage = lazyView(() => import('./pages/compare/ComparePage').then((m) => m.ComparePage));

export interface RouteDef {
  /** Relative to /p/:project. */
  path: string;
  element: ReactElement;
  /** Shown in the navigation when set. */
  nav?: string;
}

export const routes: RouteDef[] = [
  { path: 'conversations', element: <ConversationsPage />, nav: 'Conversations' },
  { path: 'conversations/:conversationId', element: <ConversationPage /> },
  { path: 'traces/:traceId', element: <TracePage /> },
  { path: 'clusters', element: <ClustersPage />, nav: 'Clusters' },
  { path: 'review', element: <ReviewPage />, nav: 'Review' },
  { path: 'agents', element: <AgentsPage />, nav: 'Agents' },
  { path: 'spans', element: <SpansPage />, nav: 'Spans' },
  { path: 'threads', element: <ThreadsPage />, nav: 'Threads' },
  { path: 'compare', element: <ComparePage />, nav: 'Compare' },
  { path: 'replays', element: <ReplaysPage />, nav: 'Replays' },
  { path: 'replays/:replayId', element: <ReplayReportPage /> },
  { path: 'loop', element: <LoopPage />, nav: 'Loop' },
  { path: 'training/*', element: <TrainingPage />, nav: 'Training' },
  { path: 'settings', element: <SettingsPage />, nav: 'Settings' },
];
