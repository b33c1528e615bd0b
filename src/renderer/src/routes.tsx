/**
 * Every view and its deep link, relative to `#/p/<project>/` (hooks/project projectPath). The shell
 * (App.tsx) builds navigation and the router from this list. Hash routes so the same build works from
 * file:// in Electron and from the loopback server. A bare `#/agents` redirects into the last project.
 */
import type { ReactElement } from 'react';
import { AgentsPage } from './pages/agents/AgentsPage';
import { SpansPage } from './pages/spans/SpansPage';
import { ThreadsPage } from './pages/threads/ThreadsPage';
import { TrainingPage } from './pages/training/TrainingPage';
import { ConversationsPage } from './pages/conversations/ConversationsPage';
import { ConversationPage } from './pages/conversations/ConversationPage';
import { TracePage } from './pages/trace/TracePage';
import { SettingsPage } from './pages/settings/SettingsPage';

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
  { path: 'training/*', element: <TrainingPage />, nav: 'Training' },
  { path: 'settings', element: <SettingsPage />, nav: 'Settings' },
];
