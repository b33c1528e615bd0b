import { HashRouter, NavLink, Route, Routes } from 'react-router-dom';
import { routes } from './routes';

export function App() {
  return (
    <HashRouter>
      <nav>
        {routes.filter((r) => r.nav).map((r) => (
          <NavLink key={r.path} to={r.path.replace('/*', '')}>{r.nav}</NavLink>
        ))}
      </nav>
      <main>
        <Routes>
          {routes.map((r) => (
            <Route key={r.path} path={r.path} element={r.element} />
          ))}
        </Routes>
      </main>
    </HashRouter>
  );
}
