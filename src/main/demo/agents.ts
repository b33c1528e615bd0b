/** The cast of the demo: agents, their models and their tools (names the price table knows). */
export interface DemoAgent {
  name: string;
  id: string;
  description: string;
  provider: 'openai' | 'anthropic';
  model: string;
  /** What the provider answers in gen_ai.response.model (dated snapshot names, as real APIs do). */
  responseModel: string;
  instructions: string;
  tools: string[];
}

export const AGENTS = {
  triage: {
    name: 'triage',
    id: 'agent_triage_v3',
    description: 'Front-line support agent: answers order questions and routes billing issues',
    provider: 'openai',
    model: 'gpt-4o-mini',
    responseModel: 'gpt-4o-mini-2024-07-18',
    instructions: 'You are the support triage agent of Northwind Outfitters. Be brief and friendly. Use tools for facts; hand billing questions to the billing agent.',
    tools: ['lookup_order', 'update_shipping_address', 'transfer_to_billing'],
  },
  billing: {
    name: 'billing',
    id: 'agent_billing_v2',
    description: 'Handles refunds, invoices and payment disputes',
    provider: 'anthropic',
    model: 'claude-sonnet-4-20250514',
    responseModel: 'claude-sonnet-4-20250514',
    instructions: 'You are the billing specialist. Verify the order and the payment before any refund. Refunds above $200 need a supervisor.',
    tools: ['get_invoice', 'issue_refund'],
  },
  researcher: {
    name: 'researcher',
    id: 'agent_researcher_v1',
    description: 'Looks things up in the product catalogue and the knowledge base',
    provider: 'openai',
    model: 'o4-mini',
    responseModel: 'o4-mini-2025-04-16',
    instructions: 'You research product questions. Cite the knowledge-base article you used.',
    tools: ['search_kb', 'get_product'],
  },
  summarizer: {
    name: 'summarizer',
    id: 'agent_summarizer_v1',
    description: 'Writes short hand-off summaries of long conversations',
    provider: 'anthropic',
    model: 'claude-3-5-haiku-20241022',
    responseModel: 'claude-3-5-haiku-20241022',
    instructions: 'Summarize the conversation so far in three sentences for a colleague.',
    tools: [],
  },
} as const satisfies Record<string, DemoAgent>;

export type AgentKey = keyof typeof AGENTS;

export const TOOL_DESCRIPTIONS: Record<string, { description: string; parameters: Record<string, string> }> = {
  lookup_order: { description: 'Find an order by its number and return status, carrier and ETA', parameters: { order_id: 'string' } },
  update_shipping_address: { description: 'Change the delivery address of an order that has not shipped', parameters: { order_id: 'string', address: 'string' } },
  transfer_to_billing: { description: 'Hand the conversation to the billing agent', parameters: { reason: 'string' } },
  get_invoice: { description: 'Fetch the invoice of an order', parameters: { order_id: 'string' } },
  issue_refund: { description: 'Refund an amount to the original payment method', parameters: { order_id: 'string', amount_usd: 'number', reason: 'string' } },
  search_kb: { description: 'Search the support knowledge base', parameters: { query: 'string' } },
  get_product: { description: 'Product details by SKU', parameters: { sku: 'string' } },
};
