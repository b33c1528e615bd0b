/**
 * Types for the browser globals used inside `page.evaluate` callbacks. The node tsconfig has no DOM
 * lib (adding it would hide DOM use in server code), so each e2e file declares the globals it uses
 * with these types at module scope (`declare const document: BrowserDocument;` — local to that file,
 * erased at build). At run time the callbacks execute in Chromium, where the real globals exist.
 * Only what the tests touch is described.
 */
export interface El {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; bottom: number; left: number; width: number; height: number };
  textContent: string | null;
  tagName: string;
  style: Record<string, string>;
  blur(): void;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  scrollWidth: number;
  clientWidth: number;
  scrollBy(x: number, y: number): void;
  focus(): void;
}
export interface BrowserDocument {
  querySelector(sel: string): El | null;
  querySelectorAll(sel: string): ArrayLike<El> & Iterable<El>;
  activeElement: El | null;
  documentElement: El & { dataset: Record<string, string | undefined> };
}
export interface BrowserWindow { innerHeight: number; [key: string]: unknown }
export interface BrowserDataTransfer { items: { add(file: unknown): void } }
export type RAF = (cb: (t: number) => void) => number;
