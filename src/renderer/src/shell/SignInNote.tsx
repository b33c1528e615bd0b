/**
 * Says when the served page is not signed in and how to sign in (issue 22.8). Reading traces needs no
 * key, so the page works signed out, but live updates, training, imports by path and the training key
 * do: a bare URL, a sign-in link opened a second time (or after 10 minutes) or a key the server no
 * longer knows used to leave the page signed out without a word. Closing the note hides it for this tab.
 */
import { useState } from 'react';
import { useSignIn, type SignIn } from '../api/session';

const HIDDEN = 'loupe.signin-note-hidden';

const WHY: Record<Exclude<SignIn, 'pending' | 'signed-in'>, string> = {
  'no-key': 'This page is not signed in to Loupe.',
  'link-refused': 'This sign-in link was already used or has expired, so this page is not signed in.',
  'key-refused': 'The Loupe server no longer accepts this page’s key (another data folder, or a new key), so this page is signed out.',
};

export function SignInNote() {
  const state = useSignIn();
  const [hidden, setHidden] = useState(() => window.sessionStorage.getItem(HIDDEN) === state);
  if (state === 'pending' || state === 'signed-in' || hidden) return null;
  return (
    <div className="offline-banner signin-note" role="status" data-testid="signin-note">
      <strong>{WHY[state]}</strong> Traces can be read; live updates, training and the training key need signing in. Run{' '}
      <code>loupe url</code> in a terminal (same <code>--data-dir</code>) and open the link it prints, or the link <code>loupe serve</code>{' '}
      printed when it started. Each link works once, within 10 minutes.
      <button
        className="icon signin-note-close"
        aria-label="Hide this note"
        onClick={() => {
          window.sessionStorage.setItem(HIDDEN, state);
          setHidden(true);
        }}
      >
        ×
      </button>
    </div>
  );
}
