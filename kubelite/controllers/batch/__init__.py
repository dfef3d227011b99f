"""The pure logic of kube-controller-manager's Job and CronJob controllers: cron schedules (`cron`), what a
CronJob sync does (`cronjob`) and what a Job sync does (`job`), each a function from objects as the API serves
them, and the clock's reading, to plain data saying what to create, delete, write and record."""
