/**
 * Imported first (main.tsx), before the contract's schemas are built. zod 4 probes `new Function`
 * once to decide whether it may compile fast parsers; under the page's Content-Security-Policy
 * (no 'unsafe-eval') that probe is reported as a CSP violation in the console on every load, even
 * though zod catches it. `jitless` skips the probe: the renderer only validates a few small inputs.
 */
import { z } from 'zod';

z.config({ jitless: true });
