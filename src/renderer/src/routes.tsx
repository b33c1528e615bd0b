/**
 * Every view and its deep link. The shell (App.tsx) builds navigation and the router from this list.
 * Hash routes so the same build works from file:// in Electron and from the loopback server.
 */
import type { ReactElement } from 'react';
import { AgentsPage } from './pages/agents/AgentsPage';
import { SpansPage } from './pages/spans/SpansPage';
import { ThreadsPage } from './pages/threads/ThreadsPage';
import { TrainingPage } from './pages/training/TrainingPage';

export interface RouteDef {
  path: string;
  element: ReactElement;
  /** Shown in the navigation when set. */
  nav?: string;
}

export const routes: RouteDef[] = [
  { path: '/agents', element: <AgentsPage />, nav: 'Agents' },
  { path: '/spans', element: <SpansPage />, nav: 'Spans' },
  { path: '/threads', element: <ThreadsPage />, nav: 'Threads' },
  { path: '/training/*', element: <TrainingPage />, nav: 'Training' },
];
