// Package gang holds Muster's gang decisions: where a gang's spec comes from,
// whether it is valid, when its quorum is met, when its members may bind and in
// which order gangs are scheduled. It has no scheduler framework imports so the
// rules can be read and tested as plain tables; the scheduler plugin in
// pkg/scheduler/plugins/gang adapts them to the framework's extension points.
package gang
