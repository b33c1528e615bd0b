export function SpansPage() {
  return <div className="page">SpansPage</div>;
}
