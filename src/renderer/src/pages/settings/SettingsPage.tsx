export function SettingsPage() {
  return <div className="page">SettingsPage</div>;
}
