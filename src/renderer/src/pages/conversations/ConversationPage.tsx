export function ConversationPage() {
  return <div className="page">ConversationPage</div>;
}
