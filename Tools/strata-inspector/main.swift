import StrataToolSupport

ToolRunner.main(StrataInspectorCommand.self, tool: "strata-inspector")
