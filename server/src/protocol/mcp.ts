/**
 * How an editor starts ToonLens's MCP server (`toonlens mcp` from the bundled CLI): the VS Code client registers it
 * for agent mode with this command line, and docs/mcp.md shows the same for other clients.
 */
import * as path from 'node:path';

/** The id in package.json `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'toonlens.mcp';
export const MCP_SERVER_LABEL = 'ToonLens';

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The bundled CLI's `mcp` command, run by the editor's own runtime: `execPath` is the extension host's executable
 * (Electron on the desktop, Node on a remote host), which `ELECTRON_RUN_AS_NODE` makes act as Node.
 */
export function mcpServerLaunch(extensionPath: string, execPath: string): McpLaunch {
  return { command: execPath, args: [path.join(extensionPath, 'dist', 'cli.js'), 'mcp'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}
