window.TW_COUNTRIES = [
  "Argentina", "Australia", "Austria", "Belgium", "Benin", "Brazil", "Bulgaria", "Burkina Faso",
  "Cameroon", "Canada", "Chile", "China", "Colombia", "Côte d'Ivoire", "Croatia", "Czechia",
  "Denmark", "Egypt", "Equatorial Guinea", "Estonia", "Finland", "France", "Gabon", "Gambia",
  "Germany", "Ghana", "Greece", "Guinea", "Guinea-Bissau", "Hungary", "Iceland", "India",
  "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kenya", "Latvia", "Liberia", "Lithuania",
  "Luxembourg", "Mali", "Mexico", "Morocco", "Netherlands", "New Zealand", "Niger", "Nigeria",
  "Norway", "Papua New Guinea", "Peru", "Philippines", "Poland", "Portugal", "Romania", "Senegal",
  "Sierra Leone", "Singapore", "Slovakia", "Slovenia", "South Africa", "South Korea", "Spain",
  "Sweden", "Switzerland", "Togo", "Tunisia", "Turkey", "Ukraine", "United Arab Emirates",
  "United Kingdom", "United States", "Uruguay", "Vietnam"
];
