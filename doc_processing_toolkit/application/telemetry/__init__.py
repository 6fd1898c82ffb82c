"""The run's telemetry: where the run, request and tool seams reach the Telemetry port."""
