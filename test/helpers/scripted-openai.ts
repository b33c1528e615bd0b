/**
 * A scripted OpenAI-compatible server for replay tests: a real HTTP server on port 0 answering
 * POST /chat/completions with whatever the test's script returns for each request body, keeping
 * every request it received (to check what a replay sent).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string } }[];
  temperature?: number;
  max_tokens?: number;
}

export type ScriptAnswer =
  | { text: string; usage?: [number, number] }
  | { tool: string; args: unknown; usage?: [number, number] }
  | { status: number; body?: unknown };

export interface ScriptedServer {
  url: string;
  requests: ChatRequest[];
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export async function startScriptedOpenAi(script: (req: ChatRequest) => ScriptAnswer | Promise<ScriptAnswer>): Promise<ScriptedServer> {
  const requests: ChatRequest[] = [];
  const authorizations: (string | undefined)[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404).end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
        requests.push(body);
        authorizations.push(req.headers.authorization);
        const a = await script(body);
        if ('status' in a) {
          res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body ?? { error: { message: 'scripted failure' } }));
          return;
        }
        const [prompt, completion] = a.usage ?? [100, 20];
        const message = 'text' in a ? { role: 'assistant', content: a.text } : { role: 'assistant', content: null, tool_calls: [{ id: `call_s${n++}`, type: 'function', function: { name: a.tool, arguments: JSON.stringify(a.args) } }] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${n++}`, object: 'chat.completion', created: 0, model: body.model,
            choices: [{ index: 0, message, finish_reason: 'text' in a ? 'stop' : 'tool_calls' }],
            usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          }),
        );
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
