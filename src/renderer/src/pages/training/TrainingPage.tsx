export function TrainingPage() {
  return <div className="page">TrainingPage</div>;
}
