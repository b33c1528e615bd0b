// Must stay the first import: configures zod before any schema is created (see zod-setup.ts).
import './zod-setup';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles/theme.css';
import './styles/base.css';
import './styles/components.css';
import './styles/chat.css';
import './styles/trace.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
