/**
 * Markdown — message text rendered as markdown (GitHub flavour: tables, task lists, strikethrough,
 * autolinks; a single newline breaks the line) with highlighted code blocks.
 *
 * Message text comes from any emitter, so it is untrusted: react-markdown builds React elements and
 * never injects HTML (raw HTML inside a message is dropped, not rendered), and links open outside the app. Code is
 * highlighted by lowlight (highlight.js grammars as a syntax tree, rendered as elements — again no
 * HTML strings) with only the grammars agent traces usually carry, so the bundle stays small; a
 * block in another language is shown plain.
 * Props: text.
 */
import { memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkBreaks from 'remark-breaks';
import { createLowlight } from 'lowlight';
import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import bash from 'highlight.js/lib/languages/bash';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const lowlight = createLowlight({ bash, diff, javascript, json, python, sql, typescript, xml, yaml });
lowlight.registerAlias({ bash: ['sh', 'shell', 'zsh', 'console'], javascript: ['js', 'jsx'], typescript: ['ts', 'tsx'], python: ['py'], xml: ['html'], yaml: ['yml'] });

function highlighted(code: string, lang: string | undefined): ReactNode {
  if (!lang || !lowlight.registered(lang)) return code;
  try {
    return toJsxRuntime(lowlight.highlight(lang, code), { Fragment, jsx, jsxs });
  } catch {
    return code;
  }
}

/** The text of a code element's children: react-markdown passes a string, or strings in an array. */
const nodeText = (n: ReactNode): string =>
  typeof n === 'string' || typeof n === 'number' ? String(n) : Array.isArray(n) ? (n as ReactNode[]).map(nodeText).join('') : '';

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  code: ({ className, children }) => {
    const lang = /language-([\w+-]+)/.exec(className ?? '')?.[1]?.toLowerCase();
    const text = nodeText(children);
    // Inline code has no language class and no newline.
    if (!lang && !text.includes('\n')) return <code className="md-inline">{children}</code>;
    return <code className={`hljs${lang ? ` language-${lang}` : ''}`}>{highlighted(text.replace(/\n$/, ''), lang)}</code>;
  },
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
  // Images in a message could point anywhere (tracking pixels, local files): shown as a link instead.
  img: ({ src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noreferrer noopener">
      {alt || 'image'}
    </a>
  ),
};

// Models write line by line: a single newline is a line break here (remark-breaks), not a space as in CommonMark.
const PLUGINS = [remarkGfm, remarkBreaks];

const MarkdownView = memo(function MarkdownView({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={PLUGINS} components={components} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

export default MarkdownView;
