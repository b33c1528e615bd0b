// Must stay the first import: configures zod before any schema is created (see zod-setup.ts).
import './zod-setup';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ViewLoadError } from './shell/lazyView';
import './styles/theme.css';
import './styles/base.css';
import './styles/components.css';
import './styles/chat.css';
import './styles/trace.css';

// A view that could not load while the server is away is shown as such (shell/ViewBoundary.tsx) and
// comes back by itself: not an error worth the console. Every other caught error is logged as React does.
const onCaughtError = (error: unknown, info: { componentStack?: string }) => {
  if (error instanceof ViewLoadError && error.offline) return;
  console.error(error, info.componentStack);
};

createRoot(document.getElementById('root')!, { onCaughtError }).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
