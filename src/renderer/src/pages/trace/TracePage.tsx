export function TracePage() {
  return <div className="page">TracePage</div>;
}
