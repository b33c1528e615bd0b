/**
 * Every view and its deep link, relative to `#/p/<project>/` (hooks/project projectPath). The shell
 * (App.tsx) builds navigation and the router from this list. Hash routes so the same build works from
 * file:// in Electron and from the loopback server. A bare `#/agents` redirects into the last project.
 * The views people open first (conversations, a conversation, a trace) are in the main bundle; the
 * others load on first visit (their own chunks: charts, the spans explorer, diffs), so the app boots
 * with less to parse.
 */
import { lazy, type ReactElement } from 'react';
import { ConversationsPage } from './pages/conversations/ConversationsPage';
import { ConversationPage } from './pages/conversations/ConversationPage';
import { TracePage } from './pages/trace/TracePage';

const AgentsPage = lazy(() => import('./pages/agents/AgentsPage').then((m) => ({ default: m.AgentsPage })));
const SpansPage = lazy(() => import('./pages/spans/SpansPage').then((m) => ({ default: m.SpansPage })));
const ThreadsPage = lazy(() => import('./pages/threads/ThreadsPage').then((m) => ({ default: m.ThreadsPage })));
const TrainingPage = lazy(() => import('./pages/training/TrainingPage').then((m) => ({ default: m.TrainingPage })));
const SettingsPage = lazy(() => import('./pages/settings/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const ComparePage = lazy(() => import('./pages/compare/ComparePage').then((m) => ({ default: m.ComparePage })));

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
  { path: 'agents', element: <AgentsPage />, nav: 'Agents' },
  { path: 'spans', element: <SpansPage />, nav: 'Spans' },
  { path: 'threads', element: <ThreadsPage />, nav: 'Threads' },
  { path: 'compare', element: <ComparePage />, nav: 'Compare' },
  { path: 'training/*', element: <TrainingPage />, nav: 'Training' },
  { path: 'settings', element: <SettingsPage />, nav: 'Settings' },
];
