package calendar

import (
	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// instructions tell the assistant how the server works.
const instructions = `Google Calendar of the person's accounts. Times are RFC 3339 with an offset ` +
	`(2026-12-03T09:00:00+01:00), a local time with time_zone, or a date (2026-12-03) for all-day events; ` +
	`call current_time first when you need today's date. Sign-in is asked from the person in mcptray, never from you: just call the tool. ` +
	`Recurring events: list_events returns occurrences (with recurring_event_id); update_event and delete_event take scope this, following or all.`

func ann(title string, readOnly, destructive, idempotent bool) *sdk.ToolAnnotations {
	open := true
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: &destructive,
		IdempotentHint: idempotent, OpenWorldHint: &open}
}

// text is a result whose text mirror is s (the SDK adds the structured
// content).
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// MCPServer builds the MCP server with every tool.
func (s *Server) MCPServer() *sdk.Server {
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "mcptray-gcal", Title: "mcptray Google Calendar", Version: version},
		&sdk.ServerOptions{Instructions: instructions})
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "list_calendars",
		Description: `List the calendars of an account (or "all" accounts): id, name, time zone, primary, selected (shown in Google Calendar).`,
		Annotations: ann("List calendars", true, false, true),
	}, google.WithInput(s.listCalendarsTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "list_events",
		Description: "List events (each occurrence of a recurring one) between time_min and time_max (default: now to 7 days later), " +
			`sorted by start, from calendar_id or every selected calendar; query searches their text. account may be "all".`,
		Annotations: ann("List events", true, false, true),
	}, google.WithInput(s.listEventsTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "get_event",
		Description: "Get one event (or occurrence) by id, with its attendees and their answers.",
		Annotations: ann("Get an event", true, false, true),
	}, google.WithInput(s.getEventTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "create_event",
		Description: "Create an event. start/end: RFC 3339, a local time with time_zone, or dates for an all-day event " +
			"(end is the day after the last day; omit it for one day). Optional: attendees (invited by email with send_updates), " +
			"recurrence (RRULE lines), add_meet_link, reminders (minutes before). Returns what Google stored and the events it overlaps.",
		Annotations: ann("Create an event", false, false, false),
	}, google.WithInput(s.createEventTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "update_event",
		Description: "Change an event: only the fields given change. For an occurrence of a recurring event, scope is this (default; " +
			"only that occurrence), following (it and later ones) or all (the whole series).",
		Annotations: ann("Update an event", false, true, true),
	}, google.WithInput(s.updateEventTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "delete_event",
		Description: "Delete an event. For an occurrence of a recurring event, scope is this (default), following or all.",
		Annotations: ann("Delete an event", false, true, true),
	}, google.WithInput(s.deleteEventTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "respond_to_event",
		Description: "Answer an invitation: accepted, declined or tentative, with an optional comment to the organizer.",
		Annotations: ann("Respond to an invitation", false, false, true),
	}, google.WithInput(s.respondTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "find_free_time",
		Description: "Busy times across calendars (default: every selected one) between time_min and time_max (default: the next 7 days), " +
			"and free slots of duration_minutes inside working hours (default 09:00-17:00, weekdays) in time_zone (default the primary calendar's).",
		Annotations: ann("Find free time", true, false, true),
	}, google.WithInput(s.findFreeTimeTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "current_time",
		Description: "The current date and time in the person's time zone (their primary calendar's), or in time_zone.",
		Annotations: ann("Current time", true, false, true),
	}, google.WithInput(s.currentTimeTool))
	return srv
}
