/**
 * The OTLP log messages (opentelemetry-proto v1.x `logs/v1/logs.proto` and
 * `collector/logs/v1/logs_service.proto`; field numbers are wire facts). Parsed into the same
 * protobufjs root as the trace schema (trace-proto.ts), whose AnyValue, KeyValue, Resource and
 * InstrumentationScope it uses. Only what /v1/logs and its response need.
 */
export const OTLP_LOGS_PROTO = /* proto */ `
syntax = "proto3";
package opentelemetry.proto;

message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }

message ResourceLogs {
  Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ScopeLogs {
  InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
message LogRecord {
  reserved 4;
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
`;
