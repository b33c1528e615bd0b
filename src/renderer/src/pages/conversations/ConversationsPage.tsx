export function ConversationsPage() {
  return <div className="page">ConversationsPage</div>;
}
