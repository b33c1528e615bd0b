/**
 * The hand-written demo conversations (the ones worth reading), plus seeded variations of short
 * order questions so lists, groupings and distributions have something to show.
 */
import type { Rng } from './rng.js';
import type { ConversationScript, TurnScript } from './script.js';

const order = (id: string, status: string, carrier: string, eta: string, total: number) => ({ order_id: id, status, carrier, eta, total_usd: total });

export const STORY_CONVERSATIONS: ConversationScript[] = [
  {
    id: 'conv-order-a1187',
    agent: 'triage',
    userId: 'user-maria',
    feedback: { rating: 4, note: 'Resolved, but the refund hand-off took two tries.' },
    turns: [
      {
        user: 'Where is order A-1187?',
        steps: [
          { kind: 'model', reasoning: 'The user asks for an order status. I should look the order up rather than guess.', tools: [{ name: 'lookup_order', args: { order_id: 'A-1187' }, result: order('A-1187', 'in_transit', 'UPS', '2026-11-25', 249.0) }] },
          { kind: 'model', text: 'Your order A-1187 is on its way with UPS and should arrive on November 25.' },
        ],
        answer: 'Your order A-1187 is on its way with UPS and should arrive on November 25.',
        feedback: { thumbs: 'up' },
      },
      {
        user: 'Can I still change the delivery address to 12 Harbour Street, Leith?',
        steps: [
          { kind: 'model', tools: [{ name: 'update_shipping_address', args: { order_id: 'A-1187', address: '12 Harbour Street, Leith' }, result: { ok: false, reason: 'already_shipped' } }] },
          { kind: 'model', text: 'I am sorry, the parcel has already shipped, so the address can no longer be changed. You can ask UPS to redirect it with the tracking number 1Z999AA10123456784.' },
        ],
        answer: 'I am sorry, the parcel has already shipped, so the address can no longer be changed. You can ask UPS to redirect it with the tracking number 1Z999AA10123456784.',
      },
      {
        user: 'OK. Also, I was charged twice for this order.',
        steps: [
          { kind: 'model', reasoning: 'A double charge is a billing matter: hand off to the billing agent with the order number.', tools: [{ name: 'transfer_to_billing', args: { reason: 'double charge on A-1187' }, result: { transferred: true } }] },
          {
            kind: 'delegate',
            agent: 'billing',
            task: 'Customer reports a double charge on order A-1187.',
            steps: [
              { kind: 'model', reasoning: 'Check the invoice for two captures before promising anything.', tools: [{ name: 'get_invoice', args: { order_id: 'A-1187' }, result: { order_id: 'A-1187', captures: [{ id: 'ch_1', amount_usd: 249.0 }, { id: 'ch_2', amount_usd: 249.0 }] } }] },
              { kind: 'model', text: 'Two captures of $249.00 confirmed; the second one is a duplicate.' },
            ],
            answer: 'Confirmed: the card was captured twice ($249.00 each). The second capture is a duplicate.',
          },
          { kind: 'model', text: 'Billing confirmed the duplicate charge of $249.00. Would you like me to refund it?' },
        ],
        answer: 'Billing confirmed the duplicate charge of $249.00. Would you like me to refund it?',
      },
      {
        user: 'Yes please, refund the duplicate.',
        steps: [
          {
            kind: 'delegate',
            agent: 'billing',
            task: 'Refund the duplicate capture ch_2 of $249.00 on A-1187.',
            steps: [
              { kind: 'model', reasoning: '$249 is above the $200 limit. Policy says a supervisor must approve; the tool will refuse.', tools: [{ name: 'issue_refund', args: { order_id: 'A-1187', amount_usd: 249.0, reason: 'duplicate capture ch_2' }, result: null, error: { type: 'PermissionDenied', message: 'refunds above $200 need supervisor approval' } }] },
              { kind: 'model', text: 'The refund needs supervisor approval; I have opened request SUP-5521.' },
            ],
            answer: 'The refund needs a supervisor: request SUP-5521 was opened and is usually approved within a day.',
          },
          { kind: 'model', text: 'The refund of $249.00 needs a supervisor\'s approval. I opened request SUP-5521; you will get an e-mail within one business day.' },
        ],
        answer: 'The refund of $249.00 needs a supervisor\'s approval. I opened request SUP-5521; you will get an e-mail within one business day.',
        feedback: { thumbs: 'down', note: 'Customer expected an instant refund.' },
      },
      {
        user: 'Fine. Which carrier handles returns if I want to send the jacket back later?',
        steps: [
          {
            kind: 'delegate',
            agent: 'researcher',
            task: 'Return carrier and window for order A-1187 (a jacket).',
            steps: [
              { kind: 'model', reasoning: 'Look up the returns policy article.', tools: [{ name: 'search_kb', args: { query: 'returns carrier jacket window' }, result: [{ article: 'KB-204', title: 'Returns and exchanges', snippet: 'Returns ship free with DHL within 30 days of delivery.' }] }] },
              { kind: 'model', text: 'DHL, free, 30 days after delivery (KB-204).' },
            ],
            answer: 'Returns go with DHL, free of charge, within 30 days of delivery (KB-204).',
          },
          { kind: 'model', text: 'Returns are free with DHL within 30 days of delivery; print the label from your account page.' },
        ],
        answer: 'Returns are free with DHL within 30 days of delivery; print the label from your account page.',
      },
      {
        user: 'Thanks. Can you remind me what we agreed on so far?',
        compaction: {
          summary: 'Order A-1187 (jacket, $249) is in transit with UPS, ETA Nov 25; address change impossible (shipped). Duplicate charge confirmed by billing; refund awaits supervisor approval (SUP-5521). Returns: DHL, free, 30 days.',
          itemsBefore: 24,
          itemsAfter: 3,
        },
        steps: [
          { kind: 'model', text: 'Here is where we are: A-1187 arrives Nov 25 with UPS; the address could not be changed; the duplicate $249 charge will be refunded once SUP-5521 is approved; returns are free with DHL within 30 days.' },
        ],
        answer: 'Here is where we are: A-1187 arrives Nov 25 with UPS; the address could not be changed; the duplicate $249 charge will be refunded once SUP-5521 is approved; returns are free with DHL within 30 days.',
      },
      {
        user: 'Perfect, that is all. Bye!',
        steps: [{ kind: 'model', text: 'You are welcome, Maria. Have a good day!' }],
        answer: 'You are welcome, Maria. Have a good day!',
        feedback: { thumbs: 'up' },
      },
    ],
  },
  {
    id: 'conv-invoice-timeout',
    agent: 'billing',
    userId: 'user-tom',
    feedback: { rating: 2, note: 'Invoice service timed out; customer had to retry.' },
    turns: [
      {
        user: 'I need the invoice for order B-2044 for my expense report.',
        steps: [
          { kind: 'model', tools: [{ name: 'get_invoice', args: { order_id: 'B-2044' }, result: null, error: { type: 'TimeoutError', message: 'invoice service did not answer within 10 s' } }] },
          { kind: 'model', error: { type: 'anthropic.APIStatusError', message: 'overloaded_error: Overloaded' } },
        ],
        answer: null,
        feedback: { thumbs: 'down' },
      },
      {
        user: 'Hello? Did that work?',
        steps: [
          { kind: 'model', tools: [{ name: 'get_invoice', args: { order_id: 'B-2044' }, result: { order_id: 'B-2044', invoice_url: 'https://northwind.example/invoices/B-2044.pdf', total_usd: 87.5 } }] },
          { kind: 'model', text: 'Sorry for the wait. Here is your invoice for B-2044 ($87.50): https://northwind.example/invoices/B-2044.pdf' },
        ],
        answer: 'Sorry for the wait. Here is your invoice for B-2044 ($87.50): https://northwind.example/invoices/B-2044.pdf',
      },
    ],
  },
  {
    id: 'conv-waterproof-rating',
    agent: 'researcher',
    userId: 'user-ana',
    turns: [
      {
        user: 'Is the Fjord Shell jacket waterproof enough for hiking in Scotland?',
        steps: [
          { kind: 'model', reasoning: 'Need the product spec (hydrostatic head) and the KB advice on ratings.', tools: [{ name: 'get_product', args: { sku: 'FJ-SHELL-22' }, result: { sku: 'FJ-SHELL-22', name: 'Fjord Shell', hydrostatic_head_mm: 20000, seams: 'taped' } }, { name: 'search_kb', args: { query: 'waterproof rating hiking' }, result: [{ article: 'KB-118', snippet: '10,000 mm is fine for showers; 20,000 mm for sustained heavy rain.' }] }] },
          { kind: 'model', text: 'Yes. The Fjord Shell is rated 20,000 mm with taped seams, which KB-118 recommends for sustained heavy rain.' },
        ],
        answer: 'Yes. The Fjord Shell is rated 20,000 mm with taped seams, which KB-118 recommends for sustained heavy rain.',
        feedback: { thumbs: 'up' },
      },
      {
        user: 'And does it pack small?',
        steps: [
          { kind: 'model', tools: [{ name: 'get_product', args: { sku: 'FJ-SHELL-22' }, result: { sku: 'FJ-SHELL-22', packed_size_cm: '22x12x8', weight_g: 380 } }] },
          { kind: 'model', text: 'It packs to about 22 × 12 × 8 cm and weighs 380 g.' },
        ],
        answer: 'It packs to about 22 × 12 × 8 cm and weighs 380 g.',
      },
    ],
  },
];

const QUESTIONS = [
  (o: string) => `Where is order ${o}?`,
  (o: string) => `Has ${o} shipped yet?`,
  (o: string) => `When will ${o} arrive?`,
  (o: string) => `My order ${o} says delivered but I have nothing.`,
];
const STATUSES = [
  { status: 'in_transit', carrier: 'UPS', say: (o: string, eta: string) => `Order ${o} is in transit with UPS, expected ${eta}.` },
  { status: 'processing', carrier: null, say: (o: string, eta: string) => `Order ${o} is being packed and should ship before ${eta}.` },
  { status: 'delivered', carrier: 'DHL', say: (o: string) => `DHL marks ${o} as delivered at your front door this morning. If it is not there, I can open an investigation.` },
];

/** Short seeded order conversations for volume (1–3 turns each). */
export function fillerConversations(rng: Rng, count: number): ConversationScript[] {
  const out: ConversationScript[] = [];
  for (let i = 0; i < count; i++) {
    const turns: TurnScript[] = [];
    const n = rng.int(1, 3);
    for (let t = 0; t < n; t++) {
      const o = `${rng.pick(['A', 'B', 'C', 'D'])}-${rng.int(1000, 9999)}`;
      const s = rng.pick(STATUSES);
      const eta = `2026-11-${String(rng.int(23, 30)).padStart(2, '0')}`;
      const answer = s.say(o, eta);
      turns.push({
        user: rng.pick(QUESTIONS)(o),
        steps: [
          { kind: 'model', tools: [{ name: 'lookup_order', args: { order_id: o }, result: { order_id: o, status: s.status, carrier: s.carrier, eta } }] },
          { kind: 'model', text: answer },
        ],
        answer,
        ...(rng.next() < 0.25 ? { feedback: { thumbs: rng.next() < 0.7 ? ('up' as const) : ('down' as const) } } : {}),
      });
    }
    out.push({ id: `conv-${rng.hex(6)}`, agent: rng.next() < 0.8 ? 'triage' : 'billing', userId: `user-${rng.int(100, 999)}`, turns });
  }
  return out;
}
