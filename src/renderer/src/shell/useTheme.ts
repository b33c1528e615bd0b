/** Applies the theme preference to <html data-theme> and follows the OS when the preference is 'system'. */
import { useEffect } from 'react';
import { resolveTheme, useUi } from '../stores/ui';

export function useApplyTheme(): void {
  const theme = useUi((s) => s.theme);
  useEffect(() => {
    const apply = () => document.documentElement.setAttribute('data-theme', resolveTheme(theme));
    apply();
    if (theme !== 'system' || !window.matchMedia) return;
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    mq.addEventListener('change', apply);
    return () => mq.removeEventListener('change', apply);
  }, [theme]);
}
