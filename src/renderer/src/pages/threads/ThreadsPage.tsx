export function ThreadsPage() {
  return <div className="page">ThreadsPage</div>;
}
