/**
 * A generated wide trace for the timeline figures (e2e test and bench): one root agent, 200
 * sub-agents, each with up to 99 children (LLM calls and tools alternating), deterministic times,
 * one ERROR span. 20,000 spans is 7.7 MB of OTLP JSON.
 */
export function bigTrace(traceId: string, n = 20_000): { resourceSpans: unknown[] } {
  const t0 = BigInt(Date.parse('2026-11-01T09:00:00Z')) * 1_000_000n;
  const ms = (x: number) => BigInt(Math.round(x * 1e6));
  const spans: unknown[] = [];
  const id = (i: number) => i.toString(16).padStart(16, '0');
  const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
  spans.push({ traceId, spanId: id(1), name: 'invoke_agent planner', kind: 1, startTimeUnixNano: String(t0), endTimeUnixNano: String(t0 + ms(200 * 100 + 10)), attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', 'planner')], status: {} });
  let next = 2;
  for (let a = 0; a < 200; a++) {
    const aStart = t0 + ms(a * 100 + 5);
    const agentId = next++;
    spans.push({ traceId, spanId: id(agentId), parentSpanId: id(1), name: `invoke_agent worker-${a % 7}`, kind: 1, startTimeUnixNano: String(aStart), endTimeUnixNano: String(aStart + ms(99)), attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', `worker-${a % 7}`)], status: {} });
    for (let c = 0; c < 99 && next <= n; c++) {
      const tool = c % 3 === 1;
      const s = aStart + ms(c);
      spans.push({
        traceId, spanId: id(next++), parentSpanId: id(agentId), name: tool ? 'execute_tool lookup' : 'chat gpt-4o-mini', kind: tool ? 1 : 3,
        startTimeUnixNano: String(s), endTimeUnixNano: String(s + ms(0.5 + (c % 5) * 0.1)),
        attributes: tool ? [attr('gen_ai.operation.name', 'execute_tool'), attr('gen_ai.tool.name', 'lookup')] : [attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', 'gpt-4o-mini')],
        status: c === 50 && a === 3 ? { code: 2, message: 'boom' } : {},
      });
    }
  }
  return { resourceSpans: [{ resource: { attributes: [attr('service.name', 'perf')] }, scopeSpans: [{ scope: { name: 'gen' }, spans }] }] };
}
