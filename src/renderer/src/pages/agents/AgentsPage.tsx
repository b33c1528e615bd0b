export function AgentsPage() {
  return <div className="page">AgentsPage</div>;
}
